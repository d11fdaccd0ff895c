import GuardProtocol
import TestSupport
import Testing

@Suite("Pausing and resuming", .serialized)
struct PauseResumeTests {
    @Test("Paused, the keys act normally; resumed, the volume they left is held, clamped", arguments: AudioServer.Kind.underTest)
    func pauseAndResume(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)

        #expect(try await ack(daemon, .pause) == "paused")
        #expect(try await daemon.status().state == .paused)
        #expect(await eventually { await subscriber.states.last == StateMessage(state: .paused, sink: nil) })
        // Levels both servers read back exactly.
        try server.setVolume(of: "guard_a", raw: [3277, 3277])
        try server.pactl("set-sink-mute", "guard_a", "1")
        try await expectVolume(server, "guard_a", [3277, 3277])
        #expect(try server.isMuted("guard_a"))
        await expectNoMorePresses(subscriber, than: 0)

        #expect(try await ack(daemon, .resume) == "resumed")
        let status = try await daemon.status()
        #expect(status.state == .guarding)
        #expect(status.held?.raw == [3277, 3277])
        #expect(status.original?.raw == [3277, 3277])
        #expect(status.muted == true)
        #expect(await eventually { await subscriber.states.last == StateMessage(state: .guarding, sink: "guard_a") })
        try server.pactl("set-sink-volume", "guard_a", "-5%")
        #expect(try await subscriber.waitForPresses(1).map(\.direction) == [.down])
        try await expectVolume(server, "guard_a", [3277, 3277])
        #expect(try server.isMuted("guard_a"))

        // A level the keys took to 100 % while paused is held one unit under, as at start.
        #expect(try await ack(daemon, .pause) == "paused")
        #expect(try await daemon.status().state == .paused)
        try server.setVolume(of: "guard_a", raw: [65536, 65536])
        try await expectVolume(server, "guard_a", [65536, 65536])
        #expect(try await ack(daemon, .resume) == "resumed")
        #expect(try await daemon.status().held?.raw == [65535, 65535])
        try await expectVolume(server, "guard_a", [65535, 65535])
        await expectNoMorePresses(subscriber, than: 1)
    }

    @Test("Subscribers get a state line when the guarded sink changes, though the state does not", arguments: AudioServer.Kind.underTest)
    func sinkSwitchIsAnnounced(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)
        try await server.setDefaultSink("guard_b")
        #expect(await eventually { await subscriber.states == [StateMessage(state: .guarding, sink: "guard_b")] })
    }
}

/// Sends a request with no other effect on the connection and returns the type of its reply.
private func ack(_ daemon: Daemon, _ command: Request.Command) async throws -> String? {
    guard case .ack(let ack) = try await daemon.client.request(Request(command)) else { return nil }
    return ack.type
}
