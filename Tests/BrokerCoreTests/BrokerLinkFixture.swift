import BrokerCore
import GuardProtocol

/// A link on topics of `volume-guard/booth`, with one discovery config, and presses to feed it.
enum Fixture {
    static let topics = BrokerTopics(prefix: "volume-guard/booth", clientID: "volume-guard/booth")
    static let config = BrokerDocument(topic: "homeassistant/event/volume-guard_booth/presses/config", payload: "{}")

    static func link(commands: Bool = false, discovery: Bool = true) -> BrokerLink {
        BrokerLink(.init(topics: topics, commands: commands, discovery: discovery, documents: [config]))
    }

    static func press(_ seq: UInt64) -> BrokerEvent {
        BrokerEvent(PressMessage(seq: seq, direction: .up, count: 1, sink: nil, time: "2026-12-02T13:00:00.000Z"))
    }
}

extension [BrokerLink.Action] {
    /// The message numbers of the presses these actions publish, in order.
    var sentMessages: [UInt64] {
        compactMap {
            if case .publish(_, let publication) = $0 { publication.message } else { nil }
        }
    }

    /// The topics these actions publish to, in order.
    var publishedTopics: [String] {
        compactMap {
            if case .publish(_, let publication) = $0 { publication.topic } else { nil }
        }
    }
}

extension BrokerLink {
    /// Starts, and connects the first attempt at `now`.
    mutating func connect(at now: Duration = .zero) {
        _ = handle(.start, at: now)
        _ = handle(.connected(attempt: 1), at: now)
    }
}
