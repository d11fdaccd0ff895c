/// Sent to subscribers when the guard's state or guarded sink changes.
public struct StateMessage: Hashable, Sendable, Codable {
    public var type = "state"
    public var state: GuardState
    public var sink: String?

    public init(state: GuardState, sink: String?) {
        self.state = state
        self.sink = sink
    }
}
