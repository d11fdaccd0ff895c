/// The wire's vocabulary: what the daemon is doing, which way a press went, and which gesture a run of
/// presses made. Each word is spelled here once; the decision core uses these values, and a client reads
/// them without linking the core.

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

/// Which key a press stands for.
public enum Direction: String, Hashable, Sendable, CaseIterable, Codable {
    case up
    case down
    case mute
}

/// What a run of presses made: a key held down, or pressed twice quickly.
public enum GestureKind: String, Hashable, Sendable, Codable {
    /// Presses of one direction began repeating at auto-repeat pace: the key is held.
    case holdStart = "hold_start"
    /// The repeats stopped: the key was let go (or the direction changed, or the server went away).
    case holdEnd = "hold_end"
    /// Two separate presses of one direction within the double-press window.
    case double
}
