import Foundation
import MQTTBridge
import Synchronization
import TestSupport

/// A connection and the events it told, in order.
final class Recorder: Sendable {
    /// What the handler shares with the test; it holds the connection until the recorder goes.
    private final class Log: Sendable {
        let events = Mutex<[BrokerConnection.Event]>([])
        let connection = Mutex<BrokerConnection?>(nil)
    }

    private let log = Log()

    /// The connection, made with a fresh client id; `reaction` runs in its handler after each event is recorded.
    init(reaction: @escaping @Sendable (BrokerConnection.Event, BrokerConnection) -> Void = { _, _ in }) {
        let log = log
        let connection = BrokerConnection(clientID: "test-\(UUID().uuidString.prefix(8))") { event in
            log.events.withLock { $0.append(event) }
            if let connection = log.connection.withLock({ $0 }) { reaction(event, connection) }
        }
        log.connection.withLock { $0 = connection }
    }

    deinit { log.connection.withLock { $0.take() }?.close() }

    var connection: BrokerConnection { log.connection.withLock { $0! } }

    var all: [BrokerConnection.Event] { log.events.withLock { $0 } }

    /// Waits for an event that `match` picks; it, or a failure naming the events seen.
    @discardableResult
    func waitFor(_ what: String, _ match: @escaping (BrokerConnection.Event) -> Bool) async throws -> BrokerConnection.Event {
        var found: BrokerConnection.Event?
        _ = await eventually(within: .seconds(15)) {
            found = all.first(where: match)
            return found != nil
        }
        guard let found else { throw TestFailure("no \(what) among \(all)") }
        return found
    }

    /// Connects and waits for `.connected`.
    func connect(_ request: BrokerConnection.ConnectRequest) async throws {
        connection.connect(request)
        try await waitFor(".connected") { $0 == .connected }
    }
}
