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
/// input and writes a `ParseOutcome` as JSON on a descriptor of its own (`answerDescriptor`). A child
/// that dies takes only itself, and its death is a mistake in the file like any other.
///
/// Only the text goes to the child, never the file's path (which may start with `-`, and would read as an
/// option): the parent names the file in the child's mistake. The answer has a channel of its own so
/// that what else writes to standard error (the loader, warning of an `LD_PRELOAD` it cannot load) cannot
/// spoil it; standard output and error are kept for a crash's last words.
extension ConfigFile {
    /// Where the text is parsed.
    public enum Parser: Sendable {
        /// In this process: the child itself, and the tests.
        case inProcess
        /// In a child process running `executable config --parse-stdin` (`/proc/self/exe`: this very
        /// executable, whatever its path).
        case child(executable: String)
    }

    /// What the child writes: the file's options, or its mistake (whose path the parent fills in).
    public enum ParseOutcome: Codable, Sendable {
        case options(Options)
        case mistake(ConfigError)
    }

    /// How long a child may take, to read the text, parse it and answer: a file of `sizeLimit` parses in
    /// well under a second.
    static let childDeadline: Duration = .seconds(10)

    /// The child's descriptor for its answer: the first after standard input, output and error.
    public static let answerDescriptor: Int32 = 3

    /// `text` (the file at `path`) parsed by a child.
    static func parseInChild(_ text: String, path: String, executable: String) throws(ConfigError) -> Options {
        let run: ChildRun
        do {
            // No backtrace of the crash: the assertion's line says what happened, and the backtracer takes time.
            let environment =
                ProcessInfo.processInfo.environment.filter { $0.key != "SWIFT_BACKTRACE" }.map { "\($0.key)=\($0.value)" }
                + ["SWIFT_BACKTRACE=enable=no"]
            run = try ChildRun(
                executable: executable, arguments: ["volume-guard", "config", "--parse-stdin"], input: Array(text.utf8),
                environment: environment, deadline: childDeadline, answerDescriptor: answerDescriptor)
        } catch {
            throw ConfigError(path: path, message: "cannot be parsed: the parser could not start (\(error))")
        }
        switch run.end {
        case .exited(0) where run.answer.isEmpty:
            throw ConfigError(path: path, message: "cannot be parsed: the parser ended without an answer\(Self.lastWords(run.output))")
        case .exited(0):
            switch try? JSONDecoder().decode(ParseOutcome.self, from: Data(run.answer)) {
            case .options(let options): return options
            case .mistake(var mistake):
                mistake.path = path
                throw mistake
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
