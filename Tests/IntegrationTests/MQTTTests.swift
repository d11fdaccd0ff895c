import Foundation
import GuardProtocol
import TestSupport
import Testing

/// The daemon against a real Mosquitto broker (scripts/mqtt-broker) and a real subscriber (`mosquitto_sub`),
/// its presses made on a real PulseAudio. The cases are spread over this file's extensions.
@Suite("Presses to an MQTT broker", .serialized)
struct MQTTTests {
    /// What a daemon with the defaults announces to Home Assistant: the keys it makes presses of, the
    /// gestures of the volume keys, and the press of the sink's mute, which makes no gestures.
    static let keys = ["up", "down", "mute"]
    static let gestures = ["tap", "double", "hold_start", "hold_end"]
    static let gestureKeys = ["up", "down"]
    static var triggers: Set<String> { Announcement.objects(gestures: gestures, keys: gestureKeys).union(["press_mute"]) }

    @Test("Presses and gestures arrive as JSON in seq order; availability, state and the discovery configs are retained, as Home Assistant documents them")
    func publishing() async throws {
        let server = try AudioServer(.pulseaudio)
        let broker = try Broker()
        let prefix = "volume-guard/\(hostName)"
        let live = try await BrokerSubscriber(to: broker, topics: ["volume-guard/#", "homeassistant/#"])
        let daemon = try await Daemon(on: server, config: brokerConfig(port: broker.port))
        let socket = try await Subscriber(to: daemon)
        try await live.waitFor("online", on: "\(prefix)/availability")
        try await daemon.waitForBroker("connected")

        try server.pactl("set-sink-volume", "guard_a", "+5%")
        _ = try await socket.waitForPresses(1)
        try server.pactl("set-sink-volume", "guard_a", "-5%")
        _ = try await socket.waitForPresses(2)
        try server.pactl("set-sink-mute", "guard_a", "toggle")
        _ = try await socket.waitForPresses(3)
        #expect(await eventually { await socket.gestures.count >= 2 }, "each lone volume press is a tap; a mute, no gesture")
        await expectSameEvents([live], socket, on: "\(prefix)/events")

        let events = live.messages(on: "\(prefix)/events")
        #expect(events.allSatisfy { !$0.retained })
        var pressSeqs: [Int] = []
        for event in events {
            let json = try #require(event.json, "not JSON: \(event)")
            let seq = try #require(json["seq"] as? Int, "no seq: \(event)")
            let direction = try #require(json["direction"] as? String, "no direction: \(event)")
            let time = try #require(json["time"] as? String, "no time: \(event)")
            #expect((try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(time)) != nil, "time \(time)")
            switch json["type"] as? String {
            case "press":
                pressSeqs.append(seq)
                #expect(json["event_type"] as? String == "press:\(direction)")
            case "gesture":
                let gesture = try #require(json["gesture"] as? String, "no gesture: \(event)")
                #expect(json["event_type"] as? String == "\(gesture):\(direction)")
            default:
                Issue.record("neither a press nor a gesture: \(event)")
            }
            #expect(json["device"] == nil, "a press on the sink is of no device: \(event)")
        }
        #expect(pressSeqs == [1, 2, 3])

        // A subscriber that comes later gets what is retained, and no press.
        let late = try await BrokerSubscriber(to: broker, topics: ["volume-guard/#", "homeassistant/#"])
        #expect(late.messages.allSatisfy { $0.retained }, "\(late.messages)")
        #expect(late.payloads(on: "\(prefix)/availability") == ["online"])
        #expect(late.messages(on: "\(prefix)/events").isEmpty)
        let state = try #require(late.messages(on: "\(prefix)/state").last?.json, "\(late.messages)")
        #expect(state["state"] as? String == "guarding")
        #expect(state["sink"] as? String == "guard_a")
        #expect(state["devices"] as? [String] == [])
        let announced = try await late.announcement(of: prefix)
        #expect(Set(announced.triggers.keys) == Self.triggers)
        let pairs = Self.gestures.flatMap { gesture in Self.gestureKeys.map { "\(gesture):\($0)" } }
        #expect(announced.eventTypes == Set(Self.keys.map { "press:\($0)" } + pairs))
        for type in live.events(on: "\(prefix)/events").map({ String($0.prefix { $0 != "@" }) }) {
            #expect(announced.eventTypes.contains(type), "Home Assistant's event entity would drop \(type)")
        }
    }

    @Test("A burst of 1,000 presses reaches the subscriber whole, in order, none dropped")
    func burst() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let broker = try Broker()
        let live = try await BrokerSubscriber(to: broker, topics: ["vg-test/burst/#"])
        let daemon = try await Daemon(on: server, config: brokerConfig(port: broker.port) + "mqtt-topic = \"vg-test/burst\"\nstep = 5\n")
        let socket = try await Subscriber(to: daemon)
        try await live.waitFor("online", on: "vg-test/burst/availability")
        let keys = try await KeyPresser(on: server, sink: "guard_a")

        let total = 1_000
        for _ in 0..<total { try await keys.pressUp(by: 3277) }
        #expect(try await socket.waitForPresses(total).map(\.seq) == Array(1...UInt64(total)))
        await expectSameEvents([live], socket, on: "vg-test/burst/events", within: .seconds(60))
        let presses = live.events(on: "vg-test/burst/events").filter { $0.hasPrefix("press:") }
        #expect(presses == (1...total).map { "press:up@\($0)" })
        let status = try #require(try await daemon.brokerStatus())
        #expect(status.dropped == 0)
        // The broker's last acknowledgement may reach the daemon after the subscriber has the message.
        #expect(try await eventually { try await daemon.brokerStatus()?.queued == 0 })
    }
}

/// Waits until the events on `topic` that `subscribers` received, once each (QoS 1 may deliver one twice),
/// are exactly those the socket's subscriber `socket` received, in the same order.
func expectSameEvents(
    _ subscribers: [BrokerSubscriber], _ socket: Subscriber, on topic: String, within timeout: Duration = .seconds(20),
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    var (seen, expected): ([String], [String]) = ([], [])
    let same = await eventually(within: timeout) {
        seen = onceEach(subscribers.flatMap { $0.events(on: topic) })
        expected = await socket.brokerEvents
        return seen == expected
    }
    #expect(same, "the broker's subscribers saw \(seen), the socket's subscriber \(expected)", sourceLocation: sourceLocation)
}

/// `events` with each repeat after its first left out: a consumer's deduplication by `seq` (and `event_type`,
/// since a gesture carries the seq of the press that completed it).
func onceEach(_ events: [String]) -> [String] {
    var kept = Set<String>()
    return events.filter { kept.insert($0).inserted }
}
