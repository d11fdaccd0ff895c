import GuardSettings
import FoundationEssentials

/// What `volume-guard run` hands the daemon it becomes: the options of the command line and of the
/// config file, read and checked, and the command that reads the file again on SIGHUP.
///
/// The CLI parses arguments and TOML; the daemon's executable links neither parser, nor ICU, which keeps
/// a third fewer of its pages resident (docs/PERFORMANCE.md, "RSS"). The CLI passes this in the
/// environment, as JSON, across `exec`: the daemon keeps the process, so its pid is the one that was
/// started (systemd's `Type=notify`, `kill`, a supervisor's wait).
public struct Launch: Codable, Hashable, Sendable {
    /// What the command line sets; it wins over the file, at start and at every reload.
    public var flags: Options
    /// What the config file set when the CLI read it.
    public var file: Options
    /// A program and its arguments that print the config file's options as JSON, or a mistake in it on
    /// standard error (`volume-guard config --json`).
    public var rereadFile: [String]

    public init(flags: Options, file: Options, rereadFile: [String]) {
        self.flags = flags
        self.file = file
        self.rereadFile = rereadFile
    }

    /// The environment variable that carries it; the daemon removes it before anything inherits it.
    public static let environmentKey = "VOLUME_GUARD_LAUNCH"

    /// The configuration the options give, with defaults for what they leave unset; `file` stands for
    /// what the config file sets now (a reload), the flags still win over it.
    public func configuration(file: Options? = nil, environment: [String: String]) -> Configuration {
        Configuration((file ?? self.file).overridden(by: flags), environment: environment)
    }

    public func encoded() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }

    public init(decoding text: String) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(text.utf8))
    }
}
