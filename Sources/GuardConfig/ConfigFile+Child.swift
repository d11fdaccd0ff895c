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
            // No backtrace of the crash: the assertion's line says what happened, and the backtracer takes time.
            let environment =
                ProcessInfo.processInfo.environment.filter { $0.key != "SWIFT_BACKTRACE" }.map { "\($0.key)=\($0.value)" }
                + ["SWIFT_BACKTRACE=enable=no"]
            run = try ChildRun(
                executable: executable, arguments: ["volume-guard", "config", "--parse-stdin", "--config", path], input: Array(text.utf8),
                environment: environment, deadline: childDeadline)
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
