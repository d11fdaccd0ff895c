import DurableFiles
import Glibc
import GuardConfig
import GuardSettings

/// Writes `learn`'s settings into the config file, as the user whose file it is (under sudo, in the child
/// `UserFiles` starts): the file's other lines and comments kept (`ConfigEdit`), the result checked as
/// `config` checks a file before anything is written, the old file kept as a backup, the new one put in
/// place whole (`DurableFile`).
///
/// The file is kept as it was where learn does not change it: its mode, owner and group; a symlink to it
/// stays a symlink, and its target is written. The old file is read as `config` reads one, bounded: only
/// a regular file of at most `ConfigFile.sizeLimit` bytes is replaced.
struct ConfigWriter {
    let file: ConfigFile

    /// The comment line above the `[[action]]` learn writes: a learn run again with a command replaces
    /// that action, however its user changed it, and never adds a second.
    static let actionMark = "# Written by `volume-guard learn -- COMMAND`, which replaces it when run again (remove this line to keep it)."

    /// A new file's mode: the user's to read and write, everyone's to read, as an editor makes one.
    static let newFileMode: mode_t = 0o644

    /// Writes `settings`, and `action` as learn's `[[action]]` when there is one; returns the backup's
    /// path, or nil when there was no file. A mistake, in the file as it is or as it would be, writes nothing.
    func write(_ settings: [(key: String, value: String)], action: [(key: String, value: String)]?) throws(ConfigError) -> String? {
        let target = Self.target(of: file.path)
        let old = try ConfigFile.bytes(at: target, on: .edit).map { bytes throws(ConfigError) in try ConfigFile.text(of: bytes, path: file.path) }
        let set = ConfigEdit.setting(settings, in: old ?? "")
        let text = action.map { ConfigEdit.placing(table: "action", marked: Self.actionMark, $0, in: set) } ?? set
        do {
            _ = try file.parse(text: text)
        } catch {
            throw ConfigError(
                path: error.path, line: error.line, column: error.column, key: error.key, action: error.action,
                message: "\(error.message) (so learn wrote nothing)")
        }
        var kept = stat()
        let existed = stat(target, &kept) == 0
        try makeDirectories(for: target)
        let backup = try old.map { old throws(ConfigError) in
            let path = Self.freeBackupPath(target)
            try Self.replace(path, with: old, keeping: kept)
            return path
        }
        try Self.replace(target, with: text, keeping: existed ? kept : nil)
        return backup
    }

    /// Where the file at `path` is: the file a symlink leads to (a dotfile manager's), so that the target
    /// is written and the symlink stays; `path` itself when it does not exist yet.
    static func target(of path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Replaces `path` with `text`, with the mode, owner and group of `kept` (the old file's) when given.
    private static func replace(_ path: String, with text: String, keeping kept: stat?) throws(ConfigError) {
        do {
            try DurableFile.replace(path, with: Array(text.utf8), permissions: kept.map { $0.st_mode & 0o777 } ?? newFileMode)
        } catch {
            throw ConfigError(path: path, message: "cannot be written (\(error))")
        }
        // The new file is this process's user's; the old one's owner and group, where they differ and this
        // user may give them (a group of the user's), are kept. The name, not followed, is the one just
        // renamed into place.
        if let kept, kept.st_uid != geteuid() || kept.st_gid != getegid() { _ = lchown(path, kept.st_uid, kept.st_gid) }
    }

    /// `FILE.bak`, or the first of `FILE.bak.1`, `FILE.bak.2`, … that is no name yet (not even a
    /// symlink's): no backup is lost.
    private static func freeBackupPath(_ path: String) -> String {
        var candidate = path + ".bak"
        var number = 0
        var info = stat()
        while lstat(candidate, &info) == 0 {
            number += 1
            candidate = path + ".bak.\(number)"
        }
        return candidate
    }

    /// The file's directory and those above it that are missing.
    private func makeDirectories(for path: String) throws(ConfigError) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        var missing: [String] = []
        var current = directory
        var info = stat()
        while !current.isEmpty, stat(current, &info) != 0 {
            missing.append(current)
            current = String(current[..<(current.lastIndex(of: "/") ?? current.startIndex)])
        }
        for made in missing.reversed() {
            guard mkdir(made, 0o755) == 0 || errno == EEXIST else {
                throw ConfigError(path: file.path, message: "cannot make \(made): \(String(cString: strerror(errno)))")
            }
        }
    }
}
