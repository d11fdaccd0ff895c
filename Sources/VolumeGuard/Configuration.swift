import GuardCore

/// How the daemon is set up: where it listens and how it guards.
public struct Configuration: Sendable {
    /// The control socket's path.
    public var socketPath: String
    /// The audio server's address (libpulse syntax); nil for the default (`PULSE_SERVER`, then the
    /// session's `$XDG_RUNTIME_DIR/pulse/native`).
    public var server: String?
    public var core: GuardCore.Configuration
    /// How many of the latest presses are kept for subscribers that resume with `since`.
    public var historyCapacity: Int

    public init(
        socketPath: String, server: String? = nil, core: GuardCore.Configuration = .init(),
        historyCapacity: Int = Self.defaultHistoryCapacity
    ) {
        self.socketPath = socketPath
        self.server = server
        self.core = core
        self.historyCapacity = historyCapacity
    }

    /// Minutes of key auto-repeat, hours of normal use.
    public static let defaultHistoryCapacity = 1024
    /// Bounds `historyCapacity`: every client's queue makes room for a whole replay.
    public static let historyCapacities = 1...65536
}
