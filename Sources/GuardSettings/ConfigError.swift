/// What is wrong with the config file, and where: the CLI prints it and exits 2, a reload logs it and
/// keeps the configuration it has.
public struct ConfigError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    public var path: String
    /// 1-based; nil when the file could not be read at all.
    public var line: Int?
    /// 1-based; only for syntax errors, which the TOML parser pins down.
    public var column: Int?
    /// The key at fault, as written in the file (for an action's key, `timeout` of `[[action]] 2`).
    public var key: String?
    /// Which `[[action]]` (1-based) the key belongs to, if any.
    public var action: Int?
    public var message: String

    public init(path: String, line: Int? = nil, column: Int? = nil, key: String? = nil, action: Int? = nil, message: String) {
        self.path = path
        self.line = line
        self.column = column
        self.key = key
        self.action = action
        self.message = message
    }

    /// `FILE:LINE: key "step": must be ...`, the way compilers point at a line.
    public var description: String {
        var place = path
        if let line { place += ":\(line)" }
        if let column { place += ":\(column)" }
        var subject = ""
        if let key { subject = "key \"\(key)\"" + (action.map { " of [[action]] \($0)" } ?? "") + ": " }
        return "\(place): \(subject)\(message)"
    }
}
