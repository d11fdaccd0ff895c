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
    /// Shutting down: the sinks are given back (`GuardCore.allGivenBack` says when they are), and nothing is
    /// held again.
    case stopped
}

/// Which key a press stands for.
public enum Direction: String, Hashable, Sendable, CaseIterable, Codable {
    case up
    case down
    case mute
}

/// What a run of presses made: a key held down, pressed twice quickly, or pressed once and let be.
public enum GestureKind: String, Hashable, Sendable, Codable {
    /// Presses of one direction began repeating at auto-repeat pace: the key is held.
    case holdStart = "hold_start"
    /// The repeats stopped: the key was let go (or the direction changed, or the server went away).
    case holdEnd = "hold_end"
    /// Two separate presses of one direction within the double-press window.
    case double
    /// A press that none of the gestures looked for on its key claimed (a hold, a double): told as soon
    /// as none of them still can, so it may come later than the press.
    case tap
}

/// What starts an action: every press, or one gesture of its key, as the config's `gesture` and status
/// name it. Its words are the user's, not the gesture lines': an action runs once per hold, so `hold` is
/// its start.
public enum TriggerKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// Every press, at once.
    case press
    /// A press that was neither a hold nor part of a double, of those looked for on its key.
    case tap
    /// A hold's start.
    case hold
    /// A double press.
    case double
}

/// Where a press came from.
public enum Source: String, Hashable, Sendable, Codable {
    /// A change of the guarded sink's volume or mute, whatever key or program made it.
    case sink
    /// A key of an input device the daemon grabbed.
    case input
    /// A client paired with the HTTP listener (`POST /press`), by its name.
    case client
}

/// Why a device's key is no longer down.
public enum ReleaseCause: String, Hashable, Sendable, Codable {
    /// The key came up.
    case keyUp = "key-up"
    /// The device went away (unplugged, out of range, asleep) while the key was down.
    case deviceGone = "device-gone"
    /// The daemon was paused and let the device go while the key was down.
    case paused
    /// The daemon stopped while the key was down.
    case stopped
}

/// What the daemon does with an input device it was told to take keys from, as status replies report it.
public enum DeviceState: String, Hashable, Sendable, Codable {
    /// Grabbed (EVIOCGRAB): its keys reach the daemon alone.
    case grabbed
    /// Open, and grabbed as soon as no key on it is down (a key held now would stay down for others).
    case waiting
    /// It cannot be opened or grabbed now; the daemon retries, and `error` and `fix` say why.
    case refused
    /// No device matches now; it is taken when one appears.
    case absent
    /// Left to the desktop while the daemon is paused.
    case paused
}

/// How an action's last run ended, as status replies report it.
public enum ActionResult: String, Hashable, Sendable, Codable {
    /// Still running.
    case running
    /// The command exited; `status` has its exit status (0 is success).
    case exited
    /// The command was killed by a signal it did not expect (`signal` names it).
    case signaled
    /// The command ran past its `timeout`, and its processes were stopped.
    case timedOut = "timed-out"
    /// The command could not be started (`error` says why: no such program, not executable).
    case failed
}
