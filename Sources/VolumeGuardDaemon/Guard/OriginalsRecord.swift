import FoundationEssentials
import Glibc
import GuardSettings
import SystemPackage
import VolumeGuardCore

/// The user's own levels of the sinks the daemon holds, kept on disk while it holds them.
///
/// The daemon changes a sink's volume (the clamp, every reset); if it dies without restoring (SIGKILL,
/// power loss), the next start would take the held level for the user's own. With this record it
/// restores the real one. Written atomically and durably (a temporary file synced, then renamed over
/// the record, and the directory synced) before the first write to a sink; removed once every sink has
/// been given back.
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
        // Without HOME, somewhere writable: the record must be written, where a config file is only read.
        let state = environment.nonEmpty("XDG_STATE_HOME") ?? (environment["HOME"] ?? "/tmp") + "/.local/state"
        let socket = socketPath.escapingScalars(["%": "%25", "/": "%2F"])
        return state + "/volume-guard/originals@\(socket).json"
    }

    private struct Entry: Codable {
        var volume: [UInt32]
        var muted: Bool
    }

    /// The most a record may hold: a few dozen bytes a sink. A larger file is no record this daemon wrote.
    static let sizeLimit = 1 << 20

    /// The recorded levels; empty when there is no record.
    func load() throws -> [String: SinkLevel] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        guard size <= Self.sizeLimit else { throw Failure(operation: "read", path: path, code: Errno.fileTooLarge) }
        return try Self.levels(in: Data(contentsOf: URL(filePath: path)))
    }

    /// The levels a record's bytes hold. A crash can leave anything in the file: what is not JSON is an
    /// error, and a sink whose level no audio server could have (no channels, more than libpulse's 32,
    /// a value past its maximum) is left out, so that nothing read here is ever written to a sink.
    package static func levels(in data: Data) throws -> [String: SinkLevel] {
        try JSONDecoder().decode([String: Entry].self, from: data).compactMapValues { entry in
            SinkVolume(validating: entry.volume).map { SinkLevel(volume: $0, muted: entry.muted) }
        }
    }

    /// Replaces the record; an empty one removes the file.
    func save(_ originals: [String: SinkLevel]) throws {
        let directory = URL(filePath: path).deletingLastPathComponent().path
        guard !originals.isEmpty else {
            guard unlink(path) == 0 || errno == ENOENT else { throw Failure(operation: "remove", path: path, code: Errno(rawValue: errno)) }
            return
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let entries = originals.mapValues { Entry(volume: $0.volume.channels, muted: $0.muted) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let temporary = path + ".new"
        try write(encoder.encode(entries), to: temporary)
        guard rename(temporary, path) == 0 else { throw Failure(operation: "rename", path: temporary, code: Errno(rawValue: errno)) }
        // The rename itself survives a power loss only once the directory is on disk.
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Writes `data` to a new file at `path` (mode 0600) and syncs it to disk.
    private func write(_ data: Data, to path: String) throws {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(
                path, .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: [.ownerRead, .ownerWrite]
            )
        } catch {
            throw Failure(operation: "create", path: path, code: error)
        }
        defer { try? file.close() }
        do {
            _ = try file.writeAll(data)
        } catch {
            throw Failure(operation: "write", path: path, code: error)
        }
        guard fsync(file.rawValue) == 0 else { throw Failure(operation: "sync", path: path, code: Errno(rawValue: errno)) }
    }

    struct Failure: Error, CustomStringConvertible {
        var operation: String
        var path: String
        var code: any Error
        var description: String { "cannot \(operation) \(path): \(code)" }
    }
}
