import GuardProtocol
import TestSupport
import Testing

@Suite("Guarding only while a client is subscribed", .serialized)
struct WhileSubscribedTests {
    @Test("The keys act normally until a client subscribes; when the last one leaves, the level is given back", arguments: AudioServer.Kind.underTest)
    func whileSubscribed(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let daemon = try await Daemon(on: server, arguments: ["--mode", "while-subscribed"], waitForGuarding: false)
        #expect(try await daemon.status().state == .paused)
        try server.setVolume(of: "guard_a", raw: [26214, 26214])
        try await Task.sleep(for: .milliseconds(300))
        #expect(try server.volume(of: "guard_a") == [26214, 26214], "nobody listens: the key acts")

        var subscriber: Subscriber? = try await Subscriber(to: daemon)
        #expect(try await eventually { try await daemon.status().state == .guarding })
        #expect(try await daemon.status().original?.raw == [26214, 26214])
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        #expect(try await subscriber?.waitForPresses(1).map(\.direction) == [.up])
        try await expectVolume(server, "guard_a", [26214, 26214])

        subscriber = nil
        #expect(try await eventually { try await daemon.status().state == .paused })
        try server.setVolume(of: "guard_a", raw: [19661, 19661])
        try await Task.sleep(for: .milliseconds(300))
        #expect(try server.volume(of: "guard_a") == [19661, 19661], "the last subscriber left: the key acts again")
        #expect(try await daemon.status().presses.up == 1)
        #expect(await daemon.stop() == 0)
        #expect(try server.volume(of: "guard_a") == [19661, 19661])
    }

    @Test("A client's pause holds while subscribers come and go, until a resume")
    func pauseHolds() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server, arguments: ["--mode", "while-subscribed"], waitForGuarding: false)
        var first: Subscriber? = try await Subscriber(to: daemon)
        #expect(try await eventually { try await daemon.status().state == .guarding })
        _ = try await daemon.client.request(Request(.pause))
        #expect(try await daemon.status().state == .paused)
        first = nil
        let second = try await Subscriber(to: daemon)
        #expect(try await eventually { try await daemon.status().subscribers == 1 })
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await daemon.status().state == .paused, "a subscriber does not undo a client's pause")
        _ = try await daemon.client.request(Request(.resume))
        #expect(try await daemon.status().state == .guarding)
        #expect(await second.subscribed)
        _ = first
    }
}
