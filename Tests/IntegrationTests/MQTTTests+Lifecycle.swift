import Foundation
import GuardProtocol
import TestSupport
import Testing

extension MQTTTests {
    @Test("The daemon killed with SIGKILL: the broker's will leaves a retained offline")
    func killed() async throws {
        let server = try AudioServer(.pulseaudio)
        let broker = try Broker()
        let live = try await BrokerSubscriber(to: broker, topics: ["vg-test/killed/availability"])
        let daemon = try await Daemon(on: server, config: brokerConfig(port: broker.port) + "mqtt-topic = \"vg-test/killed\"\n")
        try await live.waitFor("online", on: "vg-test/killed/availability")

        #expect(await daemon.stop(with: SIGKILL) == nil)
        try await live.waitFor("offline", on: "vg-test/killed/availability")
        let late = try await BrokerSubscriber(to: broker, topics: ["vg-test/killed/availability"])
        #expect(late.messages == [BrokerSubscriber.Message(retained: true, topic: "vg-test/killed/availability", payload: "offline")])
    }

    @Test("A clean stop leaves a retained offline; started again, the daemon is the same device to Home Assistant")
    func cleanStop() async throws {
        let server = try AudioServer(.pulseaudio)
        let broker = try Broker()
        let config = brokerConfig(port: broker.port) + "mqtt-topic = \"vg-test/stop\"\n"
        let live = try await BrokerSubscriber(to: broker, topics: ["vg-test/stop/#", "homeassistant/#"])
        let daemon = try await Daemon(on: server, config: config)
        try await live.waitFor("online", on: "vg-test/stop/availability")
        let first = try await live.announcement(of: "vg-test/stop")

        #expect(await daemon.stop() == 0)
        try await live.waitFor("offline", on: "vg-test/stop/availability")
        let late = try await BrokerSubscriber(to: broker, topics: ["vg-test/stop/availability"])
        #expect(late.messages == [BrokerSubscriber.Message(retained: true, topic: "vg-test/stop/availability", payload: "offline")])

        let stopped = live.messages.count
        let again = try await Daemon(on: server, config: config)
        try await live.waitFor("online", on: "vg-test/stop/availability")
        let second = try await live.announcement(of: "vg-test/stop", after: stopped)
        #expect(second.node == first.node)
        #expect(second.uniqueID == first.uniqueID)
        #expect(second.deviceIdentifiers == first.deviceIdentifiers)
        #expect(await again.stop() == 0)
    }

    @Test("Reloads: a new topic says online there and offline at the old; discovery off removes the configs; no mqtt, offline")
    func reloads() async throws {
        let server = try AudioServer(.pulseaudio)
        let broker = try Broker()
        let live = try await BrokerSubscriber(to: broker, topics: ["vg-test/#", "homeassistant/#"])
        let base = brokerConfig(port: broker.port)
        let daemon = try await Daemon(on: server, config: base + "mqtt-topic = \"vg-test/one\"\n")
        try await live.waitFor("online", on: "vg-test/one/availability")
        _ = try await live.announcement(of: "vg-test/one")

        try await daemon.reload(base + "mqtt-topic = \"vg-test/two\"\n")
        try await live.waitFor("online", on: "vg-test/two/availability")
        #expect(live.payloads(on: "vg-test/one/availability").last == "offline")
        let two = try await live.announcement(of: "vg-test/two")
        #expect(Set(two.triggers.keys) == Self.triggers)
        let first = Set(live.messages.filter { $0.topic.hasPrefix("homeassistant/") && $0.payload.contains("vg-test/one/") }.map(\.topic))
        try await live.waitFor("the first topic's configs removed") { messages in
            first.allSatisfy { topic in messages.last { $0.topic == topic }?.payload.contains("vg-test/one/") == false }
        }

        // With discovery off, every config goes, each as an empty retained one.
        let announcements = live.messages.count
        try await daemon.reload(base + "mqtt-topic = \"vg-test/two\"\nmqtt-discovery = false\n")
        let configs = Set(live.messages.map(\.topic).filter { $0.hasPrefix("homeassistant/") && $0.contains("/\(two.node)/") })
        #expect(configs.count == 1 + two.triggers.count, "\(configs.sorted())")
        try await live.waitFor("every config removed") { messages in
            configs.allSatisfy { topic in messages.dropFirst(announcements).contains { $0.topic == topic && $0.payload.isEmpty } }
        }
        try await live.waitFor("online", on: "vg-test/two/availability")
        let retained = try await BrokerSubscriber(to: broker, topics: ["vg-test/#", "homeassistant/#"])
        #expect(retained.messages.filter { $0.topic.hasPrefix("homeassistant/") }.isEmpty, "\(retained.messages)")
        #expect(retained.payloads(on: "vg-test/one/availability") == ["offline"])
        #expect(retained.payloads(on: "vg-test/two/availability") == ["online"])

        try await daemon.reload("")
        try await live.waitFor("offline", on: "vg-test/two/availability")
        #expect(try await eventually { try await daemon.brokerStatus() == nil })
        #expect(try await daemon.status().state == .guarding)
    }

    @Test("With mqtt-commands, pause and resume on the command topic pause and resume the guard; without, pause does nothing")
    func commands() async throws {
        let server = try AudioServer(.pulseaudio)
        let broker = try Broker()
        let live = try await BrokerSubscriber(to: broker, topics: ["vg-test/commands/#", "homeassistant/#"])
        let base = brokerConfig(port: broker.port) + "mqtt-topic = \"vg-test/commands\"\n"
        let daemon = try await Daemon(on: server, config: base + "mqtt-commands = true\n")
        try await live.waitFor("online", on: "vg-test/commands/availability")

        // Sent until the daemon has subscribed: each is the same wish.
        #expect(
            try await eventually(every: .milliseconds(500)) {
                try broker.publish("pause", on: "vg-test/commands/command")
                return try await daemon.status().state == .paused
            })
        try await live.waitFor("the paused state") { messages in
            messages.last { $0.topic == "vg-test/commands/state" }?.json?["state"] as? String == "paused"
        }
        try broker.publish("resume", on: "vg-test/commands/command")
        #expect(try await eventually { try await daemon.status().state == .guarding })

        let obeyed = daemon.log.components(separatedBy: "broker command").count
        let onlines = live.payloads(on: "vg-test/commands/availability").filter { $0 == "online" }.count
        try await daemon.reload(base)
        // The link of the new settings says online once the old one has said offline and gone.
        try await live.waitFor("online again") { messages in
            messages.filter { $0.topic == "vg-test/commands/availability" && $0.payload == "online" }.count > onlines
        }
        // A pause, then Home Assistant's birth, which the daemon answers by announcing itself again: once
        // that is seen, the pause came before it, and was not obeyed.
        let event = try await live.announcement(of: "vg-test/commands")
        let eventTopic = "homeassistant/event/\(event.node)/presses/config"
        for round in 1...2 {
            let announced = live.messages(on: eventTopic).count
            let answered = await eventually(every: .milliseconds(500)) {
                try? broker.publish("pause", on: "vg-test/commands/command")
                try? broker.publish("online", on: "homeassistant/status")
                return live.messages(on: eventTopic).count > announced
            }
            #expect(answered, "the daemon never announced itself again (round \(round))")
        }
        #expect(try await daemon.status().state == .guarding)
        #expect(daemon.log.components(separatedBy: "broker command").count == obeyed, "log:\n\(daemon.log)")
    }
}
