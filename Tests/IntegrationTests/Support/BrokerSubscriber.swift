import Foundation
import GuardProtocol
import TestSupport
import Testing

/// A real subscriber, `mosquitto_sub`, on a test's broker for as long as the test holds it: every message it
/// receives, in order, with the retained flag the broker gave it (set only for what was retained before it
/// subscribed). It reconnects by itself after a broker restart, but what was published while it was away
/// is lost to it, as to any subscriber with a clean session.
final class BrokerSubscriber: Sendable {
    struct Message: Hashable, Sendable, CustomStringConvertible {
        var retained: Bool
        var topic: String
        var payload: String

        var description: String { "\(retained ? "retained " : "")\(topic) \(payload.isEmpty ? "(empty)" : payload)" }

        /// The payload as a JSON object, or nil.
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any]
        }
    }

    private let command: BackgroundCommand
    private let probe: String

    /// Subscribes to `topics` and returns once the broker has made the subscription: a message of its own,
    /// published after the subscription's, has come back (so every retained message came before it).
    init(to broker: Broker, topics: [String]) async throws {
        let id = "sub-\(UUID().uuidString.prefix(8))"
        probe = "test-probe/\(id)"
        // `-W`: a subscriber left behind by a test process that died ends by itself.
        command = try BackgroundCommand(
            ["mosquitto_sub"] + broker.clientOptions + ["-i", id, "-q", "1", "-W", "180", "-F", "%r %t %p"]
                + topics.flatMap { ["-t", $0] } + ["-t", probe])
        let probe = probe
        let answered = await eventually(within: .seconds(15), every: .milliseconds(250)) {
            try? broker.publish("ready", on: probe)
            return self.lines.contains { $0.topic == probe }
        }
        guard answered else { throw TestFailure("mosquitto_sub on port \(broker.port) never received its probe:\n\(command.output)") }
    }

    /// Ends the subscriber, keeping what it received: it no longer reconnects.
    func end() {
        command.send(SIGKILL)
        _ = command.wait()
    }

    /// Every line received so far but the probe's.
    var messages: [Message] { lines.filter { $0.topic != probe } }

    private var lines: [Message] {
        command.output.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count >= 2 else { return nil }
            return Message(retained: fields[0] == "1", topic: String(fields[1]), payload: fields.count == 3 ? String(fields[2]) : "")
        }
    }

    func messages(on topic: String) -> [Message] { messages.filter { $0.topic == topic } }

    /// The payloads of `topic`'s messages, in order.
    func payloads(on topic: String) -> [String] { messages(on: topic).map(\.payload) }

    /// The presses and gestures received on `topic` (an events topic), each as `event_type@seq`, in order.
    func events(on topic: String) -> [String] {
        messages(on: topic).compactMap { message in
            guard let json = message.json, let type = json["event_type"] as? String, let seq = json["seq"] as? Int else { return "\(message)" }
            return "\(type)@\(seq)"
        }
    }

    /// Waits until `condition` holds of the messages received; throws, naming them, if it never does.
    func waitFor(
        _ what: String, within timeout: Duration = .seconds(15), _ condition: @escaping ([Message]) -> Bool
    ) async throws {
        guard await eventually(within: timeout, { condition(self.messages) }) else {
            throw TestFailure("the subscriber never saw \(what); it saw:\n\(messages.map(\.description).joined(separator: "\n"))")
        }
    }

    /// Waits until the daemon whose topics are under `prefix` has announced itself whole in the messages
    /// after the first `skipped`; its announcement.
    func announcement(
        of prefix: String, after skipped: Int = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Announcement {
        try await waitFor("the whole announcement of \(prefix)") { Announcement.isComplete(Array($0.dropFirst(skipped)), prefix: prefix) }
        return try Announcement(Array(messages.dropFirst(skipped)), prefix: prefix, sourceLocation: sourceLocation)
    }

    /// Waits until `payload` is the last message on `topic`.
    func waitFor(_ payload: String, on topic: String, within timeout: Duration = .seconds(15)) async throws {
        try await waitFor("\(payload) on \(topic)", within: timeout) { messages in
            messages.last { $0.topic == topic }?.payload == payload
        }
    }
}

extension Subscriber {
    /// The presses and gestures this socket subscriber received, each as the `event_type@seq` that the
    /// broker's events topic names it by (`press:up@1`, `tap:up@1`), in order.
    var brokerEvents: [String] {
        get async {
            await messages.compactMap { message in
                switch message {
                case .press(let press): "press:\(press.direction?.rawValue ?? press.key ?? "-")@\(press.seq)"
                case .gesture(let gesture): "\(gesture.gesture.rawValue):\(gesture.direction?.rawValue ?? gesture.key ?? "-")@\(gesture.seq)"
                default: nil
                }
            }
        }
    }
}
