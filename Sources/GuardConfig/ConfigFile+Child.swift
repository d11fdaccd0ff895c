import FoundationEssentials
import Glibc
import GuardSettings
import SystemPackage

/// Parsing a config file's text in a child process, so that nothing in the text can end the process
/// that reads it.
///
/// toml++ (in TOMLKit) checks its parser's own invariants with assertions, which SwiftPM's builds keep
/// (no `NDEBUG`): on some malformed files it asserts and aborts the process (Fuzz/open/README.md). A
/// daemon must not die of a reload, nor a service loop on a file at start, so the daemon and the CLI
/// parse in a child: the same executable, `config --parse-stdin`, which reads the text on its standard
/// input and writes a `ParseOutcome` as JSON. A child that dies takes only itself, and its death is a
/// mistake in the file like any other.
extension ConfigFile {
    /// Where the text is parsed.
    public enum Parser: Sendable {
        /// In this process: the child itself, and the tests.
        case inProcess
        /// In a child process running `executable config --parse-stdin` (`/proc/self/exe`: this very
        /// executable, whatever its path).
        case child(executable: String)
    }

    /// What the child writes: the file's options, or its mistake.
    public enum ParseOutcome: Codable, Sendable {
        case options(Options)
        case mistake(ConfigError)
    }

    /// How long a child may take: a file of `sizeLimit` parses in well under a second.
    static let childDeadline: Duration = .seconds(10)

    /// `text` (the file at `path`) parsed by a child.
    static func parseInChild(_ text: String, path: String, executable: String) throws(ConfigError) -> Options {
        let run: ChildRun
        do {
            run = try ChildRun(
                executable: executable, arguments: ["volume-guard", "config", "--parse-stdin", "--config", path], input: Array(text.utf8))
        } catch {
            throw ConfigError(path: path, message: "cannot be parsed: the parser could not start (\(error))")
        }
        switch run.end {
        case .exited(0):
            switch try? JSONDecoder().decode(ParseOutcome.self, from: Data(run.output)) {
            case .options(let options): return options
            case .mistake(let mistake): throw mistake
            case nil: throw ConfigError(path: path, message: "cannot be parsed: the parser's answer was not understood")
            }
        case .exited(let status):
            throw ConfigError(path: path, message: "cannot be parsed: the parser exited \(status)\(Self.lastWords(run.output))")
        case .signaled(let signal):
            throw ConfigError(path: path, message: "crashed the TOML parser (signal \(signal)), so it is refused\(Self.lastWords(run.output))")
        case .timedOut:
            throw ConfigError(path: path, message: "cannot be parsed: the parser took more than \(childDeadline.components.seconds) s; the file is refused")
        }
    }

    /// The child's last line, for the message: toml++'s assertion, say.
    private static func lastWords(_ output: [UInt8]) -> String {
        let lines = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isNewline)
        return lines.last(where: { !$0.allSatisfy(\.isWhitespace) }).map { "; the parser said: \($0.drop(while: \.isWhitespace))" } ?? ""
    }
}

/// One run of a child: `input` written to its standard input, its standard output and error read
/// together, its end; killed past `ConfigFile.childDeadline`.
private struct ChildRun {
    enum End: Equatable {
        case exited(Int32)
        case signaled(Int32)
        case timedOut
    }

    private(set) var output: [UInt8] = []
    private(set) var end = End.exited(0)

    /// `arguments` begin with the program's name (`argv[0]`).
    init(executable: String, arguments: [String], input: [UInt8]) throws(Errno) {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard Self.pipe(&toChild) else { throw Errno(rawValue: errno) }
        guard Self.pipe(&fromChild) else {
            close(toChild[0])
            close(toChild[1])
            throw Errno(rawValue: errno)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 2)
        // No backtrace of the crash: the assertion's line says what happened, and the backtracer takes time.
        let environment =
            ProcessInfo.processInfo.environment.filter { $0.key != "SWIFT_BACKTRACE" }.map { "\($0.key)=\($0.value)" }
            + ["SWIFT_BACKTRACE=enable=no"]
        var pid: pid_t = 0
        let spawned = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in posix_spawn(&pid, executable, &actions, nil, argv, envp) }
        }
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw Errno(rawValue: spawned)
        }
        // The child reads all of its input before it writes: write it all, then read.
        input.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = write(toChild[1], bytes.baseAddress! + sent, bytes.count - sent)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                sent += count
            }
        }
        close(toChild[1])
        let deadline = ContinuousClock.now + ConfigFile.childDeadline
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        reading: while true {
            let left = ContinuousClock.now.duration(to: deadline)
            var entry = pollfd(fd: fromChild[0], events: Int16(POLLIN), revents: 0)
            let ready = left > .zero ? poll(&entry, 1, Int32(clamping: left.components.seconds * 1000 + 1)) : 0
            if ready == 0 {
                kill(pid, SIGKILL)
                end = .timedOut
                break
            }
            if ready < 0 { if errno == EINTR { continue } else { break } }
            let count = chunk.withUnsafeMutableBytes { read(fromChild[0], $0.baseAddress, $0.count) }
            switch count {
            case ..<0 where errno == EINTR: continue
            case ...0: break reading
            default: output += chunk[..<count]
            }
        }
        close(fromChild[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard end != .timedOut else { return }
        // WIFEXITED and friends are macros: the low seven bits are the signal, 0 for an exit.
        end = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
    }
}

extension ChildRun {
    /// A pipe whose ends are closed on exec: the child gets only what the spawn's file actions give it.
    fileprivate static func pipe(_ ends: inout [Int32]) -> Bool {
        guard Glibc.pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }
}

/// `strings` as a NULL-terminated C array, for the duration of `body`: an argv or envp for posix_spawn.
package func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}
