extension [String: String] {
    /// The environment variable `name`, unless it is unset or empty: the XDG base directory
    /// specification and systemd treat an empty value as none.
    public func nonEmpty(_ name: String) -> String? {
        self[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The user's config directory: `XDG_CONFIG_HOME`, else `~/.config`, as the XDG base directory
    /// specification says; volume-guard's file and the desktops' (Plasma's `plasmaparc`) are found in it.
    public var configHome: String {
        nonEmpty("XDG_CONFIG_HOME") ?? (self["HOME"] ?? "/") + "/.config"
    }

    /// The user's state directory: `XDG_STATE_HOME`, else `~/.local/state` (or `/tmp/.local/state` without
    /// a home: what is kept there must be written, where a config file is only read).
    public var stateHome: String {
        nonEmpty("XDG_STATE_HOME") ?? (self["HOME"] ?? "/tmp") + "/.local/state"
    }
}
