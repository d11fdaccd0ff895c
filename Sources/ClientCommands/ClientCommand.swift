import ArgumentParser
import Foundation
import VolumeGuardClient
import GuardProtocol

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
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

public func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
