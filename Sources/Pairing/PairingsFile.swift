import DurableFiles
import FoundationEssentials
import GuardSettings

/// The pairings on disk: `$XDG_STATE_HOME/volume-guard/pairings.json` (`~/.local/state/...` when unset),
/// mode 0600, written durably (`DurableFile.replace`). It holds the tokens' hashes only, never a token.
/// `pair` and `revoke` write it; the daemon reads it at start, on a reload and when told
/// (`reload-pairings`).
public struct PairingsFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public static func standardPath(environment: [String: String]) -> String {
        environment.stateHome + "/volume-guard/pairings.json"
    }

    /// A thousand clients and more; a larger file is not one `pair` wrote.
    static let sizeLimit = 1 << 20

    private struct Contents: Codable {
        var clients: [PairedClient]
    }

    /// What the file holds; none when there is no file.
    public func load() throws(PairingsFileError) -> Pairings {
        let read: Result<[UInt8], DurableFile.Unfit>?
        do {
            read = try DurableFile.read(path, limit: Self.sizeLimit)
        } catch {
            throw PairingsFileError(path: path, problem: error.description)
        }
        let bytes: [UInt8]
        switch read {
        case nil: return Pairings()
        case .failure(.notAFile): throw PairingsFileError(path: path, problem: "is not a regular file")
        case .failure(.tooLarge(let size)): throw PairingsFileError(path: path, problem: "is \(size) bytes, more than `pair` writes")
        case .success(let contents): bytes = contents
        }
        return try Self.pairings(in: bytes, path: path)
    }

    /// The pairings a file's bytes hold, or what makes them no pairings file (`path` names it).
    public static func pairings(in bytes: [UInt8], path: String) throws(PairingsFileError) -> Pairings {
        let contents: Contents
        do {
            contents = try JSONDecoder().decode(Contents.self, from: Data(bytes))
        } catch {
            throw PairingsFileError(path: path, problem: "is not a pairings file (JSON with `clients`, each a name, a role and a token's hash)")
        }
        for client in contents.clients {
            if let problem = Pairings.problem(withName: client.name) {
                throw PairingsFileError(path: path, problem: "names a client \"\(client.name)\": \(problem)")
            }
        }
        return Pairings(contents.clients)
    }

    /// Replaces the file with `pairings`, making its directory (mode 0700) when there is none.
    public func save(_ pairings: Pairings) throws {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try DurableFile.replace(path, with: Array(encoder.encode(Contents(clients: pairings.clients))) + [0x0A], permissions: 0o600)
    }
}

/// The pairings file cannot be read, or is no pairings file.
public struct PairingsFileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var problem: String

    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String {
        problem.hasPrefix("cannot ") ? problem : "the pairings file \(path) \(problem)"
    }
}
