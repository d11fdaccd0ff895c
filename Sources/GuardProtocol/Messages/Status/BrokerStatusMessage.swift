/// The MQTT broker in a status reply, when `mqtt` is configured.
public struct BrokerStatusMessage: Hashable, Sendable, Codable {
    /// As configured: `mqtt://192.168.1.10:1883`. Never a password.
    public var broker: String
    /// `connected`, `connecting`, `waiting` (for the next attempt), `stopping` or `off`.
    public var state: String
    /// When it connected (ISO 8601, UTC), while connected.
    public var since: String?
    /// Presses and gestures the broker has not acknowledged yet, sent or waiting.
    public var queued: Int
    /// Of those, the ones sent on this connection.
    public var inFlight: Int
    /// Presses and gestures dropped, the oldest first, because 1,000 waited.
    public var dropped: Int
    /// The last failure, until a connection succeeds, and what fixes it when the user can.
    public var error: String?
    public var fix: String?

    public init(broker: String, state: String, since: String?, queued: Int, inFlight: Int, dropped: Int, error: String?, fix: String?) {
        self.broker = broker
        self.state = state
        self.since = since
        self.queued = queued
        self.inFlight = inFlight
        self.dropped = dropped
        self.error = error
        self.fix = fix
    }

    private enum CodingKeys: String, CodingKey {
        case broker, state, since, queued, dropped, error, fix
        case inFlight = "in_flight"
    }
}
