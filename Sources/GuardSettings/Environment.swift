extension [String: String] {
    /// The environment variable `name`, unless it is unset or empty: the XDG base directory
    /// specification and systemd treat an empty value as none.
    public func nonEmpty(_ name: String) -> String? {
        self[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
