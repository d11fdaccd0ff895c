import FoundationEssentials
import Subprocess
import SystemPackage

/// Reads the config file again, for a reload, through the CLI (`Launch.rereadFile`): the daemon links no
/// TOML parser of its own, and a mistake in the file is worded exactly as `volume-guard run` words it.
public struct FileRereader: Sendable {
    /// The CLI's words for why the file was not read.
    public struct Refusal: Error, CustomStringConvertible {
        public var description: String
    }

    let command: [String]

    public init(command: [String]) {
        self.command = command
    }

    /// The file's options.
    public func read() async throws -> Options {
        let result = try await Subprocess.run(
            .path(FilePath(command[0])), arguments: Arguments(Array(command.dropFirst())),
            output: .bytes(limit: 1 << 20), error: .string(limit: 1 << 16)
        )
        guard result.terminationStatus.isSuccess else {
            let words = result.standardError.split(whereSeparator: \.isNewline).joined(separator: "; ")
            throw Refusal(description: words.isEmpty ? "\(command[0]) ended with \(result.terminationStatus)" : words)
        }
        return try JSONDecoder().decode(Options.self, from: Data(result.standardOutput))
    }
}
