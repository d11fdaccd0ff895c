/// A configured action in a status reply: how often it ran, and how its last run went.
public struct ActionMessage: Hashable, Sendable, Codable {
    /// Its name, as the log calls it.
    public var name: String
    /// The gesture it runs on; absent for every press.
    public var gesture: TriggerKind?
    /// For an action on taps, how long after the press it starts at the soonest, from each source it hears:
    /// the wait until no gesture looked for on its keys can still claim the press.
    public var tapDelay: TapDelayMessage?
    /// The runs started since the daemon started.
    public var runs: Int
    /// The presses (or gestures) it was dropped for: it was still running, cooling down, or too many
    /// actions ran.
    public var dropped: Int
    /// Its last run; absent until it first runs.
    public var last: ActionRunMessage?

    public init(name: String, gesture: TriggerKind? = nil, tapDelay: TapDelayMessage? = nil, runs: Int, dropped: Int, last: ActionRunMessage?) {
        self.name = name
        self.gesture = gesture
        self.tapDelay = tapDelay
        self.runs = runs
        self.dropped = dropped
        self.last = last
    }

    private enum CodingKeys: String, CodingKey {
        case name, gesture, runs, dropped, last
        case tapDelay = "tap_delay_ms"
    }
}
