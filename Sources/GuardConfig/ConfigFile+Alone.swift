import GuardSettings

/// One setting of a config file read from its own line, when the whole file cannot be read.
extension ConfigFile {
    /// The setting `key` of the file's top level, read from its line alone by the file's parser: what a file
    /// with a mistake elsewhere still says of it (`doctor` finds the daemon's socket so, where `run` found
    /// it). Nil when the file cannot be read again (a pipe), no line of its top level sets `key`, or that
    /// line alone is wrong too.
    public func readAlone(_ key: String) -> Options? {
        guard let bytes = try? Self.contents(of: path, on: .reload), let text = String(validating: bytes, as: UTF8.self),
            let line = Self.line(setting: key, in: text)
        else { return nil }
        return try? parse(text: String(line))
    }

    /// The line of `text`'s top level, before any table, that sets `key`; nil when there is none.
    public static func line(setting key: String, in text: String) -> Substring? {
        guard let number = ConfigLines(text).line(of: key, in: .root) else { return nil }
        let line = text.split(separator: "\n", omittingEmptySubsequences: false)[number - 1]
        return ConfigLines.classify(line) == .key(key) ? line : nil
    }
}
