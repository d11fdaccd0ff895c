import PulseBridge
import Synchronization
import TestSupport
import Testing
import VolumeGuardCore

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

    /// An actor on the mainloop, as the guard is: it calls a connection on the same loop synchronously.
    actor OnMainloop {
        nonisolated var unownedExecutor: UnownedSerialExecutor { PulseMainloop.shared.asUnownedSerialExecutor() }
        var calls = 0
        var offLoop = 0

        func count() {
            calls += 1
            if PulseMainloop.shared.isIsolatingCurrentContext() != true { offLoop += 1 }
        }

        /// Starts timers due after each of `delays`, in that order, telling `record` of each as it runs.
        func startTimers(_ delays: [Duration], _ record: @escaping @Sendable (Duration, ContinuousClock.Instant) -> Void) {
            let started = ContinuousClock.now
            for delay in delays {
                PulseMainloop.shared.run(after: delay) { [self] in
                    assumeIsolated { $0.count() }
                    record(delay, started)
                }
            }
        }

        /// Sets a sink through `connection` and closes it at once, telling `record` of the close's return and
        /// of the set's completion.
        func setAndClose(_ connection: PulseConnection, sink: SinkState, _ record: @escaping @Sendable (String) -> Void) {
            connection.assumeIsolated { connection in
                connection.setSinkVolume(index: sink.index, to: sink.volume) { record($0 ? "completed" : "completed as failed") }
                connection.close()
            }
            record("closed")
        }

        /// Reads a sink through `connection`, telling `record` of the call's return and of the completion.
        func read(through connection: PulseConnection, _ record: @escaping @Sendable (String) -> Void) {
            connection.assumeIsolated { connection in
                connection.requestSink(.name("guard_a")) { record($0 == nil ? "completed as failed" : "completed with a reading") }
            }
            record("returned")
        }
    }

    @Test("A request on a closed connection completes as failed, once, after the call that made it returns")
    func refusedRequest() async {
        let connection = PulseConnection(applicationName: "bridge-test") { _ in }
        await connection.close()
        let order = Mutex<[String]>([])
        await OnMainloop().read(through: connection) { event in order.withLock { $0.append(event) } }
        #expect(await eventually { order.withLock { $0.count } == 2 })
        #expect(order.withLock { $0 } == ["returned", "completed as failed"])
    }

    @Test("Closing a connection fails its pending requests after the close returns", arguments: AudioServer.Kind.underTest)
    func closeWithPending(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let connection = PulseConnection(applicationName: "bridge-test") { _ in }
        try await connection.connect(to: server.address)
        let sink = try #require(await connection.sink(.name("guard_a")))
        let order = Mutex<[String]>([])
        await OnMainloop().setAndClose(connection, sink: sink) { event in order.withLock { $0.append(event) } }
        #expect(await eventually { order.withLock { $0.count } == 2 })
        #expect(order.withLock { $0 } == ["closed", "completed as failed"])
    }

    @Test("A timer of the mainloop runs on libpulse's thread once its delay has passed")
    func timers() async {
        let actor = OnMainloop()
        let fired = Mutex<[(delay: Duration, after: Duration)]>([])
        await actor.startTimers([.milliseconds(60), .zero, .milliseconds(20)]) { delay, started in
            fired.withLock { $0.append((delay, ContinuousClock.now - started)) }
        }
        #expect(await eventually { fired.withLock { $0.count } == 3 })
        let runs = fired.withLock { $0 }
        #expect(Set(runs.map(\.delay)) == [.zero, .milliseconds(20), .milliseconds(60)])
        // libpulse keeps due times in microseconds, on its own monotonic clock: a timer may run a few early.
        #expect(runs.allSatisfy { $0.after >= $0.delay - .milliseconds(1) })
        #expect(await actor.calls == 3)
        #expect(await actor.offLoop == 0)
    }

    @Test("Jobs from many tasks at once all run, one at a time, on libpulse's thread")
    func executor() async {
        let actor = OnMainloop()
        await withDiscardingTaskGroup { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<1_000 { await actor.count() }
                }
            }
        }
        #expect(await actor.calls == 8_000)
        #expect(await actor.offLoop == 0)
        #expect(PulseMainloop.shared.isIsolatingCurrentContext() == false, "a test task is not on the mainloop")
    }
}
