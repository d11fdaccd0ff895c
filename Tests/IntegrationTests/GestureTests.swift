import GuardProtocol
import TestSupport
import Testing
import VolumeGuardCore

@Suite("Gestures on a real server", .serialized)
struct GestureIntegrationTests {
    @Test("A held key (kernel repeat: 250 ms, then every 33 ms) is a hold_start and a hold_end; every press line stays", arguments: AudioServer.Kind.underTest)
    func heldKey(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        // Thresholds well above the repeats' pace: a busy test machine may stretch the 33 ms sleeps.
        let daemon = try await Daemon(on: server, arguments: ["--step", "5", "--repeat-period", "400", "--repeat-delay", "1500"])
        let subscriber = try await Subscriber(to: daemon)
        let key = try await KeyPresser(on: server, sink: "guard_a")

        try await key.tap(.up, by: 3277)
        try await Task.sleep(for: .milliseconds(250))
        for _ in 0..<20 {
            try await key.tap(.up, by: 3277)
            try await Task.sleep(for: .milliseconds(33))
        }
        #expect(await eventually { await subscriber.gestures.count >= 2 })
        let gestures = await subscriber.gestures
        #expect(gestures.map(\.gesture) == [.holdStart, .holdEnd])
        #expect(gestures.allSatisfy { $0.direction == .up })
        let presses = await subscriber.presses
        #expect(presses.allSatisfy { $0.direction == .up })
        #expect(gestures.last?.presses == presses.reduce(0) { $0 + $1.count })
        try await expectVolume(server, "guard_a", [32768, 32768])
    }

    struct Repeat: CustomStringConvertible, Sendable {
        var name: String
        var delay: Duration
        var period: Duration
        var description: String { name }
    }

    @Test(
        "With the default thresholds, a key held at each desktop's repeat timing is one hold",
        arguments: [
            Repeat(name: "kernel", delay: .milliseconds(250), period: .milliseconds(33)),
            Repeat(name: "GNOME", delay: .milliseconds(500), period: .milliseconds(30)),
            Repeat(name: "KDE", delay: .milliseconds(600), period: .milliseconds(40)),
        ])
    func desktopTimings(timing: Repeat) async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)
        let key = try await KeyPresser(on: server, sink: "guard_a")

        try await key.tap(.down, by: 3277)
        try await Task.sleep(for: timing.delay)
        for _ in 0..<15 {
            try await key.tap(.down, by: 3277)
            try await Task.sleep(for: timing.period)
        }
        #expect(await eventually { await subscriber.gestures.count >= 2 })
        #expect(await subscriber.gestures.map(\.gesture) == [.holdStart, .holdEnd])
    }

    @Test("Two quick presses are a double; a subscriber that turned gestures off gets only the presses")
    func doublePress() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server, arguments: ["--double-window", "1500", "--repeat-period", "100"])
        let subscriber = try await Subscriber(to: daemon)
        let key = try await KeyPresser(on: server, sink: "guard_a")
        let plain = try await daemon.client.withSession { session in
            try await session.send(Request(.subscribe, gestures: false))
            _ = try await session.next()
            try await key.tap(.down, by: 3277)
            try await Task.sleep(for: .milliseconds(200))
            try await key.tap(.down, by: 3277)
            #expect(await eventually { await subscriber.gestures.count >= 1 })
            // The plain subscriber's next lines: the two presses, and no gesture before a ping's answer.
            try await session.send(Request(.ping))
            var lines: [ServerMessage] = []
            while let message = try await session.next() {
                if case .ack = message { break }
                lines.append(message)
            }
            return lines
        }
        let gestures = await subscriber.gestures
        #expect(gestures.map(\.gesture) == [.double])
        #expect(gestures.first?.direction == .down)
        #expect(plain.allSatisfy { if case .press = $0 { true } else { false } }, "\(plain)")
        #expect(plain.count == 2)
    }
}
