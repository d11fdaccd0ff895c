import FoundationEssentials
import GuardCore

/// The user's own levels of the sinks the daemon holds, kept on disk while it holds them.
///
/// The daemon changes a sink's volume (the clamp, every reset); if it dies without restoring (SIGKILL,
/// power loss), the next start would take the held level for the user's own. With this record it
/// restores the real one. Written atomically before the first write to a sink; removed once every
/// sink has been given back.
public struct OriginalsRecord: Sendable {
    /// `$XDG_STATE_HOME/volume-guard/originals.json` (`~/.local/state/...` when unset).
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public static func standardPath(environment: [String: String]) -> String {
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? "/tmp") + "/.local/state"
        return state + "/volume-guard/originals.json"
    }

    private struct Entry: Codable {
        var volume: [UInt32]
        var muted: Bool
    }

    /// The recorded levels; empty when there is no record.
    public func load() throws -> [String: SinkLevel] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let entries = try JSONDecoder().decode([String: Entry].self, from: Data(contentsOf: URL(filePath: path)))
        return entries.compactMapValues { entry in
            entry.volume.isEmpty ? nil : SinkLevel(volume: SinkVolume(channels: entry.volume), muted: entry.muted)
        }
    }

    /// Replaces the record (temporary file, then rename); an empty one removes the file.
    public func save(_ originals: [String: SinkLevel]) throws {
        guard !originals.isEmpty else {
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            return
        }
        let directory = URL(filePath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let entries = originals.mapValues { Entry(volume: $0.volume.channels, muted: $0.muted) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(entries).write(to: URL(filePath: path), options: .atomic)
    }
}
