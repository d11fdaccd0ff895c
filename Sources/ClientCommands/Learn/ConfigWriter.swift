import FoundationEssentials
import Glibc
import GuardConfig
import GuardSettings

/// Writes `learn`'s settings into the config file: the file's other lines and comments kept
/// (`ConfigEdit`), the result checked as `config` checks a file before anything is written, the old file
/// kept as a backup, the new one put in place whole (a rename), and everything made the user's when root
/// writes it for the user.
struct ConfigWriter {
    let file: ConfigFile
    let user: InvokingUser

    /// Writes `settings`, and `action` as an `[[action]]` at the end when there is one; returns the backup's
    /// path, or nil when there was no file. A mistake, in the file as it is or as it would be, writes nothing.
    func write(_ settings: [(key: String, value: String)], action: [(key: String, value: String)]?) throws(ConfigError) -> String? {
        let path = file.path
        let old: String?
        do {
            old = try String(decoding: Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            old = nil
        } catch {
            throw ConfigError(path: path, message: "cannot be read: \(error)")
        }
        let set = ConfigEdit.setting(settings, in: old ?? "")
        let text = action.map { ConfigEdit.appending(table: "action", $0, to: set) } ?? set
        do {
            _ = try file.parse(text: text)
        } catch {
            throw ConfigError(
                path: error.path, line: error.line, column: error.column, key: error.key, action: error.action,
                message: "\(error.message) (so learn wrote nothing)")
        }
        try makeDirectories(for: path)
        let backup = try old.map { old throws(ConfigError) in try write(old, to: freeBackupPath(path), replacing: false) }
        _ = try write(text, to: path, replacing: true)
        return backup
    }

    /// Writes `text` to `path` through a temporary file and a rename, so that the file is never half
    /// written; the user's when root writes it. Returns `path`.
    private func write(_ text: String, to path: String, replacing: Bool) throws(ConfigError) -> String {
        let temporary = path + ".learn-\(getpid())"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
            user.own(temporary)
            guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            unlink(temporary)
            throw ConfigError(path: path, message: "cannot be written: \(String(cString: strerror(errno)))")
        }
        return path
    }

    /// `FILE.bak`, or the first of `FILE.bak.1`, `FILE.bak.2`, … that does not exist: no backup is lost.
    private func freeBackupPath(_ path: String) -> String {
        var candidate = path + ".bak"
        var number = 0
        while access(candidate, F_OK) == 0 {
            number += 1
            candidate = path + ".bak.\(number)"
        }
        return candidate
    }

    /// The file's directory and those above it up to the user's home, made the user's as they are made.
    private func makeDirectories(for path: String) throws(ConfigError) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        var missing: [String] = []
        var current = directory
        while !current.isEmpty, access(current, F_OK) != 0 {
            missing.append(current)
            current = String(current[..<(current.lastIndex(of: "/") ?? current.startIndex)])
        }
        for made in missing.reversed() {
            guard mkdir(made, 0o755) == 0 || errno == EEXIST else {
                throw ConfigError(path: path, message: "cannot make \(made): \(String(cString: strerror(errno)))")
            }
            user.own(made)
        }
    }
}
