import VolumeGuardCore
import PulseBridge
import Synchronization
import Testing

@Suite("The libpulse bridge", .serialized)
struct BridgeTests {
    /// Records what a connection reports.
    final class Events: Sendable {
        let seen = Mutex<[PulseEvent]>([])
        func append(_ event: PulseEvent) { seen.withLock { $0.append(event) } }
        var all: [PulseEvent] { seen.withLock { $0 } }
    }

    @Test("Reads the server and its sinks, and sets every channel's volume and the mute", arguments: AudioServer.Kind.underTest)
    func readsAndWrites(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind, sinks: ["guard_a", "surround:6"])
        let connection = PulseConnection(applicationName: "bridge-test") { _ in }
        try await connection.connect(to: server.address)

        let info = try await connection.serverInfo()
        #expect(info.defaultSink == "guard_a")
        let surround = try #require(await connection.sink(.name("surround")))
        #expect(surround.volume.channels.count == 6)

        let balanced = SinkVolume(channels: [30000, 20000, 10000, 40000, 1, 65535])
        try await connection.setSinkVolume(index: surround.index, to: balanced)
        try await connection.setSinkMute(index: surround.index, muted: true)
        let read = try #require(await connection.sink(.index(surround.index)))
        #expect(read.volume == balanced)
        #expect(read.muted)
        #expect(try server.volume(of: "surround") == balanced.channels)
        #expect(await connection.sink(.name("no_such_sink")) == nil)
    }

    @Test("Reports sink changes by index, and server changes", arguments: AudioServer.Kind.underTest)
    func events(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let events = Events()
        let connection = PulseConnection(applicationName: "bridge-test") { events.append($0) }
        try await connection.connect(to: server.address)
        let sink = try #require(await connection.sink(.name("guard_b")))

        try server.pactl("set-sink-volume", "guard_b", "+5%")
        #expect(await eventually { events.all.contains(.sinkChanged(index: sink.index)) })
        try await server.setDefaultSink("guard_b")
        #expect(await eventually { events.all.contains(.serverChanged) })
    }

    @Test("Every pending request completes, and the loss is reported, when the server dies", arguments: AudioServer.Kind.underTest)
    func serverDeath(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let events = Events()
        let connection = PulseConnection(applicationName: "bridge-test") { events.append($0) }
        try await connection.connect(to: server.address)
        let sink = try #require(await connection.sink(.name("guard_a")))

        let completed = Mutex(0)
        let requests = 500
        for number in 0..<requests {
            if number == requests / 2 { server.crash() }
            await connection.setSinkVolume(index: sink.index, to: SinkVolume(uniform: UInt32(1000 + number), count: 2)) { _ in
                completed.withLock { $0 += 1 }
            }
        }
        #expect(await eventually { completed.withLock { $0 } == requests }, "\(completed.withLock { $0 }) of \(requests) completed")
        #expect(await eventually { events.all.contains { if case .disconnected = $0 { true } else { false } } })
        // A dead connection still completes new requests, at once, as failed.
        #expect(await connection.sink(.index(sink.index)) == nil)
    }

    @Test("Connecting to no server fails with a clear error")
    func noServer() async throws {
        let connection = PulseConnection(applicationName: "bridge-test") { _ in }
        await #expect(throws: PulseError.self) {
            try await connection.connect(to: "unix:/nonexistent/pulse/native")
        }
    }
}
