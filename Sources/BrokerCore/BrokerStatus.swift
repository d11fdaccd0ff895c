/// The broker link as `status` and `doctor` show it.
public struct BrokerStatus: Hashable, Sendable {
    public enum Connection: Hashable, Sendable {
        case off
        case connecting
        /// The next attempt starts at `retry`.
        case waiting(retry: Duration)
        case connected(since: Duration)
        case stopping
    }

    public var connection: Connection
    /// Presses and gestures not yet acknowledged by the broker, in flight or waiting.
    public var queued: Int
    /// Of the queued, those sent on the current connection and not yet acknowledged.
    public var inFlight: Int
    /// Presses and gestures dropped, the oldest first, because the queue was full.
    public var dropped: Int
    /// The last failure, until a connection succeeds.
    public var lastError: BrokerError?
}

extension BrokerLink {
    public var status: BrokerStatus {
        let connection: BrokerStatus.Connection =
            switch state {
            case .off, .finished: .off
            case .connecting: .connecting
            case .waiting(_, let due): .waiting(retry: due)
            case .connected(_, let since): .connected(since: since)
            case .stopping: .stopping
            }
        return BrokerStatus(
            connection: connection, queued: queue.count, inFlight: sent.count, dropped: dropped, lastError: lastError
        )
    }
}
