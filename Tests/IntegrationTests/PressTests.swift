import GuardProtocol
import TestSupport
import Testing

@Suite("Presses on the guarded sink", .serialized)
struct PressTests {
    @Test("A volume step up or down is one press, and the volume is put back", arguments: AudioServer.Kind.underTest)
    func relativeSteps(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)

        let steps = ["+5%", "-5%", "-5%", "+5%"]
        for (number, step) in steps.enumerated() {
            try server.pactl("set-sink-volume", "guard_a", step)
            let press = try await subscriber.waitForPresses(number + 1)[number]
            #expect(press.direction == (step.hasPrefix("+") ? .up : .down))
            #expect(press.count == 1)
            #expect(press.sink == "guard_a")
            try await expectVolume(server, "guard_a", [32768, 32768])
        }
        await expectNoMorePresses(subscriber, than: steps.count)
        #expect(await subscriber.presses.map(\.seq) == [1, 2, 3, 4])
    }

    @Test("A mute toggle is a press, and the mute state is put back", arguments: AudioServer.Kind.underTest)
    func muteToggle(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)

        for number in 0..<2 {
            try server.pactl("set-sink-mute", "guard_a", "toggle")
            let press = try await subscriber.waitForPresses(number + 1)[number]
            #expect(press.direction == .mute)
            #expect(try await eventually { try !server.isMuted("guard_a") })
        }
        await expectNoMorePresses(subscriber, than: 2)
    }

    @Test("Changes on another sink are not presses", arguments: AudioServer.Kind.underTest)
    func otherSink(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)

        try server.setVolume(of: "guard_b", raw: [20000, 20000])
        try server.pactl("set-sink-mute", "guard_b", "1")
        try server.setVolume(of: "guard_b", raw: [23000, 23000])
        // A press on the guarded sink after them shows that they were seen and passed over.
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        let presses = try await subscriber.waitForPresses(1)
        #expect(presses.first?.sink == "guard_a")
        await expectNoMorePresses(subscriber, than: 1)
        try await expectVolume(server, "guard_b", [23000, 23000])
        #expect(try server.isMuted("guard_b"))
    }

    @Test("The guard's own resets and its clamp at start are never presses", arguments: AudioServer.Kind.underTest)
    func ownWritesAreNotPresses(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.pactl("set-sink-volume", "guard_a", "100%")
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)
        try await expectVolume(server, "guard_a", [65535, 65535])

        try server.pactl("set-sink-volume", "guard_a", "-5%")
        _ = try await subscriber.waitForPresses(1)
        try await expectVolume(server, "guard_a", [65535, 65535])
        await expectNoMorePresses(subscriber, than: 1)
        #expect(try await daemon.status().lastSeq == 1)
    }

    @Test("A balanced sink keeps its balance through every reset", arguments: AudioServer.Kind.underTest)
    func balanceKept(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [30000, 20000])
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)

        try server.pactl("set-sink-volume", "guard_a", "+5%")
        #expect(try await subscriber.waitForPresses(1).first?.direction == .up)
        try await expectVolume(server, "guard_a", [30000, 20000])
        try server.pactl("set-sink-volume", "guard_a", "-5%")
        #expect(try await subscriber.waitForPresses(2).last?.direction == .down)
        try await expectVolume(server, "guard_a", [30000, 20000])
    }
}
