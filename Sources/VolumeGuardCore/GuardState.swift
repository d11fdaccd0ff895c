/// What the guard is doing, as reported in status replies.
public enum GuardState: String, Hashable, Sendable, Codable {
    /// Not (yet) connected to an audio server.
    case connecting
    /// Holding a sink: its key changes are presses.
    case guarding
    /// A client asked to let the keys act normally.
    case paused
    /// Connected, but there is no sink to guard.
    case noSink = "no-sink"
    /// Shut down: the sink has been given back.
    case stopped
}
