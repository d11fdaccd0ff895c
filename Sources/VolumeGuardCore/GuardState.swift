/// What the guard is doing, as reported in status replies.
public enum GuardState: String, Hashable, Sendable, Codable {
    /// Not (yet) connected to an audio server.
    case connecting
    /// Holding a sink: its key changes are presses.
    case guarding
    /// Letting the keys act normally: a client asked to, or, in `while-subscribed` mode, nobody is
    /// subscribed.
    case paused
    /// Connected, but there is no sink to guard.
    case noSink = "no-sink"
    /// Shutting down: the sinks are given back (`GuardCore.isReleased` says when they are), and nothing is
    /// held again.
    case stopped
}
