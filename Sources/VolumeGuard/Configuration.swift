import GuardCore

/// How the daemon is set up: where it listens and how it guards.
public struct Configuration: Sendable {
    /// The control socket's path.
    public var socketPath: String
    /// The audio server's address (libpulse syntax); nil for the default (`PULSE_SERVER`, then the
    /// session's `$XDG_RUNTIME_DIR/pulse/native`).
    public var server: String?
    public var core: GuardCore.Configuration

    public init(socketPath: String, server: String? = nil, core: GuardCore.Configuration = .init()) {
        self.socketPath = socketPath
        self.server = server
        self.core = core
    }
}
