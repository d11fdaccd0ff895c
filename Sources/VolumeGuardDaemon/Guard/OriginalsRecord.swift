import DurableFiles
import FoundationEssentials
import Glibc
import GuardSettings
import SystemPackage
import VolumeGuardCore

/// The user's own levels of the sinks the daemon holds, kept on disk while it holds them.
///
/// The daemon changes a sink's volume (the clamp, every reset); if it dies without restoring (SIGKILL,
/// power loss), the next start would take the held level for the user's own. With this record it
/// restores the real one. Written durably (`DurableFile.replace`) before the first write to a sink;
/// removed once every sink has been given back. A file at its path that is no record (a power cut's
/// zeros, say) is set aside at start, never trusted.
///
/// There is one record per control socket: one daemon serves a socket, so two daemons (a second one
/// guarding a Bluetooth remote's sink, say) never overwrite each other's record.
public struct OriginalsRecord: Sendable {
    let path: String

    init(path: String) {
        self.path = path
    }

    /// `$XDG_STATE_HOME/volume-guard/originals@<socket path>.json` (`~/.local/state/...` when unset),
    /// the socket path with `/` written `%2F` (and `%` as `%25`), so that every socket has its own name.
    public static func standardPath(environment: [String: String], socketPath: String) -> String {
        let socket = socketPath.escapingScalars(["%": "%25", "/": "%2F"])
        return environment.stateHome + "/volume-guard/originals@\(socket).json"
    }

    private struct Entry: Codable {
        var volume: [UInt32]
        var muted: Bool
    }

    /// The most a record may hold: a few dozen bytes a sink. A larger file is no record this daemon wrote.
    static let sizeLimit = 1 << 20

    /// What the record holds at start.
    enum Found: Equatable {
        /// The recorded levels; empty when there is no record.
        case levels([String: SinkLevel])
        /// A file that is no record: never trusted, and set aside (renamed, so that nothing of it is lost,
        /// and the next save starts afresh) unless that failed too.
        case damaged(Damage, setAside: Result<String, DurableFile.Failure>)
    }

    /// What makes a file no record, in the words of the log.
    package enum Damage: Error, Equatable, CustomStringConvertible {
        case notAFile
        case tooLarge(Int)
        case empty
        /// Only zeros: what a power cut during a write can leave (ext4's delayed allocation).
        case zeros(Int)
        case notJSON
        case wrongShape

        package var description: String {
            switch self {
            case .notAFile: "is not a regular file"
            case .tooLarge(let size): "is \(size) bytes, more than any record holds (\(OriginalsRecord.sizeLimit))"
            case .empty: "is empty"
            case .zeros(let size): "is \(size) zero bytes, as a power cut during a write can leave a file"
            case .notJSON: "is not JSON"
            case .wrongShape: "is JSON but not a record of levels (an object of sinks, each with `volume` and `muted`)"
            }
        }
    }

    /// What the file holds; one that is not a record is set aside. Throws when it cannot be read.
    func load() throws(Failure) -> Found {
        guard let contents = try Self.contents(of: path) else { return .levels([:]) }
        do throws(Damage) {
            return .levels(try Self.levels(in: contents.get()))
        } catch {
            return .damaged(error, setAside: Result { () throws(DurableFile.Failure) in try DurableFile.setAside(path) })
        }
    }

    /// The file's bytes, or why it is no file to read; nil when there is none.
    private static func contents(of path: String) throws(Failure) -> Result<[UInt8], Damage>? {
        do {
            return try DurableFile.read(path, limit: sizeLimit)?.mapError { unfit in
                switch unfit {
                case .notAFile: .notAFile
                case .tooLarge(let size): .tooLarge(size)
                }
            }
        } catch {
            throw Failure(operation: "read", path: path, code: error.errno)
        }
    }

    /// The levels a record's bytes hold. A crash can leave anything in the file: what is not a record is
    /// `Damage`, and a sink whose level no audio server could have (no channels, more than libpulse's 32,
    /// a value past its maximum) is left out, so that nothing read here is ever written to a sink.
    package static func levels(in bytes: [UInt8]) throws(Damage) -> [String: SinkLevel] {
        guard bytes.count <= sizeLimit else { throw .tooLarge(bytes.count) }
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.contains(where: { $0 != 0 }) else { throw .zeros(bytes.count) }
        let entries: [String: Entry]
        do {
            entries = try JSONDecoder().decode([String: Entry].self, from: Data(bytes))
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw .notJSON
        } catch {
            throw .wrongShape
        }
        return entries.compactMapValues { entry in
            SinkVolume(validating: entry.volume).map { SinkLevel(volume: $0, muted: entry.muted) }
        }
    }

    /// Replaces the record, durably (`DurableFile.replace`); an empty one removes the file.
    func save(_ originals: [String: SinkLevel]) throws {
        guard !originals.isEmpty else {
            guard unlink(path) == 0 || errno == ENOENT else { throw Failure(operation: "remove", path: path, code: Errno(rawValue: errno)) }
            return
        }
        let directory = URL(filePath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let entries = originals.mapValues { Entry(volume: $0.volume.channels, muted: $0.muted) }
        try DurableFile.replace(path, with: Array(encoder.encode(entries)), permissions: 0o600)
    }

    struct Failure: Error, CustomStringConvertible {
        var operation: String
        var path: String
        var code: any Error
        var description: String { "cannot \(operation) \(path): \(code)" }
    }
}
