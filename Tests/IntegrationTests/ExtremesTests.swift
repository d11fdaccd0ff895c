import GuardProtocol
import Testing

@Suite("Presses at the extremes", .serialized)
struct ExtremesTests {
    @Test("At 100 % the sink is held one unit under, so a capped up key still registers", arguments: AudioServer.Kind.underTest)
    func atFull(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.pactl("set-sink-volume", "guard_a", "100%")
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)
        try await expectVolume(server, "guard_a", [65535, 65535])

        // A desktop key capped at 100 % sets 100 % again; an uncapped one goes over.
        for (number, step) in ["100%", "100%", "+5%"].enumerated() {
            try server.pactl("set-sink-volume", "guard_a", step)
            let press = try await subscriber.waitForPresses(number + 1)[number]
            #expect(press.direction == .up)
            #expect(press.count == 1)
            try await expectVolume(server, "guard_a", [65535, 65535])
        }
        await expectNoMorePresses(subscriber, than: 3)
    }

    @Test("At 0 % the sink is held one unit over, so a floored down key still registers", arguments: AudioServer.Kind.underTest)
    func atSilence(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.pactl("set-sink-volume", "guard_a", "0%")
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)
        try await expectVolume(server, "guard_a", [1, 1])

        for (number, step) in ["0%", "-5%", "0%"].enumerated() {
            try server.pactl("set-sink-volume", "guard_a", step)
            let press = try await subscriber.waitForPresses(number + 1)[number]
            #expect(press.direction == .down)
            #expect(press.count == 1)
            try await expectVolume(server, "guard_a", [1, 1])
        }
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        #expect(try await subscriber.waitForPresses(4).last?.direction == .up)
        await expectNoMorePresses(subscriber, than: 4)
    }
}
