import GuardSettings
import FoundationEssentials
import Subprocess
import SystemPackage

/// Reads the config file again, for a reload, through the CLI (`Launch.rereadFile`): the daemon links no
/// TOML parser of its own, and a mistake in the file is worded exactly as `volume-guard run` words it.
public struct FileRereader: Sendable {
    /// Why the file was not read: the CLI's words, or what went wrong running it.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    let command: [String]
    /// Longer than reading any config file takes; a file on a stalled mount must not hold reloads up.
    static let timeout: Duration = .seconds(5)

    public init(command: [String]) {
        self.command = command
    }

    /// The file's options.
    public func read() async throws -> Options {
        guard let program = command.first else { throw Refusal(description: "no command to read the config file with") }
        let result = try await withThrowingTaskGroup { group in
            group.addTask {
                try await Subprocess.run(
                    .path(FilePath(program)), arguments: Arguments(Array(command.dropFirst())),
                    output: .bytes(limit: 1 << 20), error: .string(limit: 1 << 16)
                )
            }
            group.addTask {
                try await Task.sleep(for: Self.timeout, clock: .eventLoop)
                throw Refusal(description: "\(program) did not answer within \(Self.timeout)")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
        guard result.terminationStatus.isSuccess else {
            let words = result.standardError.split(whereSeparator: \.isNewline)
                .map { $0.hasPrefix("volume-guard: ") ? $0.dropFirst("volume-guard: ".count) : $0 }
                .joined(separator: "; ")
            throw Refusal(description: words.isEmpty ? "\(program) ended with \(result.terminationStatus)" : words)
        }
        return try JSONDecoder().decode(Options.self, from: Data(result.standardOutput))
    }
}
