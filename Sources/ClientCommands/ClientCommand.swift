import ArgumentParser
import Glibc
import GuardProtocol
import VolumeGuardClient

/// Runs a client's work and turns its failures into the CLI's exit codes: 1 for an error reply,
/// 3 when no daemon is running (with a hint on how to start one).
func talkToDaemon(at path: String, _ work: (GuardClient) async throws -> Void) async throws {
    do {
        try await work(GuardClient(socketPath: path))
    } catch GuardClient.Failure.noDaemon(let path, _) {
        printError("volume-guard: no daemon is running at \(path)\nstart one with: volume-guard run")
        throw ExitCode(3)
    } catch let failure as GuardClient.Failure {
        printError("volume-guard: \(failure)")
        throw ExitCode.failure
    }
}

/// Prints an error reply and fails with exit code 1.
func fail(with error: ErrorMessage) throws -> Never {
    printError("volume-guard: \(error.message) (\(error.code.rawValue))")
    throw ExitCode.failure
}

/// Writes a line to standard output at once, unbuffered, so `watch` into a pipe shows each press as it happens.
func printLine(_ text: String) {
    writeLine(text, to: STDOUT_FILENO)
}

public func printError(_ text: String) {
    writeLine(text, to: STDERR_FILENO)
}

/// Writes `text` and a newline to `descriptor` with write(2), whole (a pipe may take it in parts).
/// Foundation's `FileHandle` would do the same, but importing Foundation links ICU into the executable.
/// A descriptor that fails (a closed pipe) gets the rest of the line dropped: there is no one to tell.
private func writeLine(_ text: String, to descriptor: Int32) {
    let bytes = Array((text + "\n").utf8)
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
