import Foundation
import GuardProtocol
import TestSupport
import Testing

extension MQTTTests {
    @Test("The broker down at start: presses made meanwhile wait, and arrive in order once it is up")
    func downAtStart() async throws {
        let server = try AudioServer(.pulseaudio)
        let broker = try Broker()
        try broker.stop()
        // Each attempt is in the log at trace level, so that the broker can come up between two.
        let daemon = try await Daemon(
            on: server, config: brokerConfig(port: broker.port) + "mqtt-topic = \"vg-test/late\"\n", arguments: ["--log-level", "trace"])
        let socket = try await Subscriber(to: daemon)
        let failing = try await daemon.waitForBrokerError()
        #expect(failing.error?.contains("no connection to the broker") == true, "\(failing)")
        for number in 1...3 {
            try server.pactl("set-sink-volume", "guard_a", number.isMultiple(of: 2) ? "-5%" : "+5%")
            _ = try await socket.waitForPresses(number)
        }
        #expect(await eventually { await socket.gestures.count >= 3 })
        #expect(try await daemon.brokerStatus()?.queued == socket.brokerEvents.count)

        // The third attempt has failed: the fourth comes 4 s later, after the subscriber is there.
        let between = try await eventually(within: .seconds(15)) {
            guard attempted(daemon, 3) else { return false }
            return try await daemon.brokerStatus()?.state == "waiting"
        }
        guard between else {
            throw TestFailure("no third attempt; log:\n\(daemon.log)")
        }
        try broker.restart()
        let live = try await BrokerSubscriber(to: broker, topics: ["vg-test/late/#"])
        #expect(!attempted(daemon, 4), "the daemon connected before the subscriber was there: the test proves nothing")
        try await live.waitFor("online", on: "vg-test/late/availability")
        await expectSameEvents([live], socket, on: "vg-test/late/events")
        #expect(live.events(on: "vg-test/late/events").count == 6)
        #expect(try await daemon.brokerStatus()?.error == nil)
    }

    @Test("The broker restarted mid-stream, presses during the outage: every one arrives, in order, once by seq")
    func restartMidStream() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let broker = try Broker()
        let before = try await BrokerSubscriber(to: broker, topics: ["vg-test/restart/#"])
        let daemon = try await Daemon(on: server, config: brokerConfig(port: broker.port) + "mqtt-topic = \"vg-test/restart\"\nstep = 5\n")
        let socket = try await Subscriber(to: daemon)
        try await before.waitFor("online", on: "vg-test/restart/availability")
        let keys = try await KeyPresser(on: server, sink: "guard_a")

        for _ in 0..<20 { try await keys.pressUp(by: 3277) }
        try broker.stop()
        // It would subscribe again once the broker is back, and receive later presses before earlier ones.
        before.end()
        try await daemon.waitForBroker("waiting")
        for _ in 0..<20 { try await keys.pressUp(by: 3277) }
        #expect(try await daemon.brokerStatus()?.queued ?? 0 >= 20)
        try broker.restart()
        let after = try await BrokerSubscriber(to: broker, topics: ["vg-test/restart/#"])
        for _ in 0..<20 { try await keys.pressUp(by: 3277) }
        // After a reconnect presses wait for Home Assistant's birth, as it sends it when it is back.
        try broker.publish("online", on: "homeassistant/status", retain: true)

        #expect(try await socket.waitForPresses(60).map(\.seq) == Array(1...60))
        await expectSameEvents([before, after], socket, on: "vg-test/restart/events")
        let presses = onceEach(before.events(on: "vg-test/restart/events") + after.events(on: "vg-test/restart/events"))
            .filter { $0.hasPrefix("press:") }
        #expect(presses == (1...60).map { "press:up@\($0)" })
        #expect(after.payloads(on: "vg-test/restart/availability").last == "online")
        let status = try #require(try await daemon.brokerStatus())
        #expect(status.state == "connected")
        #expect(status.dropped == 0)
    }

    @Test("Beyond 1,000 waiting while the broker is away, the oldest are dropped, counted in status and the log; the rest arrive in order")
    func queueBound() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let broker = try Broker()
        let before = try await BrokerSubscriber(to: broker, topics: ["vg-test/bound/#"])
        let daemon = try await Daemon(on: server, config: brokerConfig(port: broker.port) + "mqtt-topic = \"vg-test/bound\"\nstep = 5\n")
        let socket = try await Subscriber(to: daemon)
        try await before.waitFor("online", on: "vg-test/bound/availability")
        try broker.stop()
        before.end()
        try await daemon.waitForBroker("waiting")
        let keys = try await KeyPresser(on: server, sink: "guard_a")
        // The queue's bound (status and volume-guard(5) say 1,000).
        let bound = 1_000

        for _ in 0..<1_010 { try await keys.pressUp(by: 3277) }
        _ = try await socket.waitForPresses(1_010)
        #expect(await eventually { (try? await daemon.brokerStatus()?.dropped) ?? 0 >= 10 })
        #expect(daemon.log.contains("the broker's queue is full"), "log:\n\(daemon.log)")
        try broker.restart()
        let after = try await BrokerSubscriber(to: broker, topics: ["vg-test/bound/#"])
        try broker.publish("online", on: "homeassistant/status", retain: true)

        var (seen, kept): ([String], [String]) = ([], [])
        let arrived = await eventually(within: .seconds(30)) {
            seen = onceEach(after.events(on: "vg-test/bound/events"))
            kept = await Array(socket.brokerEvents.suffix(bound))
            return seen == kept
        }
        #expect(arrived, "the newest \(kept.count) events; arrived \(seen.count): \(seen.prefix(3)) ... \(seen.suffix(3))")
        let status = try #require(try await daemon.brokerStatus())
        #expect(status.dropped == (await socket.brokerEvents.count) - bound)
        // The broker's last acknowledgement may reach the daemon after the subscriber has the message.
        #expect(try await eventually { try await daemon.brokerStatus()?.queued == 0 })
    }
}

/// Whether the daemon's log at trace level shows its broker link's attempt `number`.
private func attempted(_ daemon: Daemon, _ number: Int) -> Bool {
    daemon.log.contains("connect(attempt: \(number))")
}
