import GuardProtocol
import TestSupport
import Testing

@Suite("Following the default sink", .serialized)
struct DefaultSinkTests {
    @Test("A switch gives the old sink its level back exactly and holds the new one at its own", arguments: AudioServer.Kind.underTest)
    func switchDefault(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.pactl("set-sink-volume", "guard_a", "100%")
        try server.pactl("set-sink-mute", "guard_a", "1")
        try server.setVolume(of: "guard_b", raw: [40000, 40000])
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)
        try await expectVolume(server, "guard_a", [65535, 65535])

        try server.pactl("set-sink-volume", "guard_a", "-5%")
        #expect(try await subscriber.waitForPresses(1)[0].sink == "guard_a")

        try await server.setDefaultSink("guard_b")
        #expect(try await eventually { try await daemon.status().sink == "guard_b" })
        try await expectVolume(server, "guard_a", [65536, 65536])
        #expect(try server.isMuted("guard_a"))

        try server.pactl("set-sink-volume", "guard_a", "50%")
        try server.pactl("set-sink-volume", "guard_b", "+5%")
        let press = try await subscriber.waitForPresses(2)[1]
        #expect(press.sink == "guard_b")
        #expect(press.direction == .up)
        try await expectVolume(server, "guard_b", [40000, 40000])
        await expectNoMorePresses(subscriber, than: 2)
    }
}
