import Foundation
import TestSupport
import Testing

@Suite("Idle is idle")
struct IdleTests {
    /// A daemon that runs all day on a laptop or a Pi wakes only when something happens. libdispatch's
    /// monitor of its worker pool, once started, wakes the process every second for good (the daemon's tasks
    /// prefer SwiftNIO's event loop, so that it never starts: EventLoopExecutor): five wake-ups in 5 s.
    /// Counted, not timed: every wake-up of a sleeping thread is a context switch.
    @Test(
        "At rest, after a client subscribed, saw a press and left, the daemon's threads wake at most twice in 5 s",
        arguments: AudioServer.Kind.underTest)
    func atRest(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let daemon = try await Daemon(on: server)
        do {
            let subscriber = try await Subscriber(to: daemon)
            try server.pactl("set-sink-volume", "guard_a", "+5%")
            _ = try await subscriber.waitForPresses(1)
        }
        #expect(try await eventually { try await daemon.status().subscribers == 0 })
        // Settling: an idle libdispatch worker (the main queue's, the signal handlers') ends 5 s after its
        // last job.
        try await Task.sleep(for: .seconds(6))

        let (total, threads) = try await Self.wakeUps(of: daemon, over: .seconds(5))
        #expect(!Daemon.runsNatively || total <= 2, "\(total) context switches in 5 s at rest (\(threads))")
        #expect(await daemon.stop() == 0)
    }

    /// An action's command is waited for by a thread that ends with it, and read and timed on the event
    /// loop (ChildProcess): nothing of it is left once it has ended. Run through swift-subprocess, it left
    /// three threads and libdispatch's monitor, ten wake-ups in 10 s, for good.
    @Test(
        "After an action has run, the daemon has no more threads than before it, and they wake at most three times in 10 s",
        arguments: AudioServer.Kind.underTest)
    func afterAnAction(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let ran = server.runtimeDirectory + "/ran"
        let config = server.runtimeDirectory + "/config.toml"
        // A timeout far beyond the count: the loop's timer, cancelled, may still wake it once at its time.
        try """
        [[action]]
        name = "touch"
        run = ["/bin/sh", "-c", "echo hello; touch \\"$1\\"", "sh", "\(ran)"]
        timeout = 600
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await Daemon(on: server, arguments: ["--config", config])
        let threadsBefore = try daemon.threads
        do {
            let subscriber = try await Subscriber(to: daemon)
            try server.pactl("set-sink-volume", "guard_a", "+5%")
            _ = try await subscriber.waitForPresses(1)
        }
        #expect(await eventually { daemon.log.contains("action done action=touch") }, "\(daemon.log)")
        #expect(FileManager.default.fileExists(atPath: ran))
        #expect(try await eventually { try await daemon.status().subscribers == 0 })
        // Settling, as above.
        try await Task.sleep(for: .seconds(6))

        #expect(try daemon.threads <= threadsBefore, "the command's threads outlived it")
        let (total, threads) = try await Self.wakeUps(of: daemon, over: .seconds(10))
        #expect(!Daemon.runsNatively || total <= 3, "\(total) context switches in 10 s at rest after an action (\(threads))")
        #expect(await daemon.stop() == 0)
    }

    /// Connected to a broker, the daemon wakes for libmosquitto's keepalive alone: its connection's thread
    /// turns every 7.5 s, a quarter of its 30 s keepalive, and sends a ping once in 30 s, whose answer wakes
    /// it again (docs/DESIGN.md, "The MQTT broker's connection has a thread of its own").
    @Test("Connected to a broker at rest, the daemon's threads wake at most six times in 15 s")
    func withABroker() async throws {
        let server = try AudioServer(.pulseaudio)
        let broker = try Broker()
        let daemon = try await Daemon(on: server, config: brokerConfig(port: broker.port) + "mqtt-topic = \"vg-test/idle\"\n")
        try await daemon.waitForBroker("connected")
        #expect(try await eventually { try await daemon.brokerStatus()?.inFlight == 0 }, "the announcement acknowledged")
        // Settling, as above.
        try await Task.sleep(for: .seconds(6))

        let (total, threads) = try await Self.wakeUps(of: daemon, over: .seconds(15))
        #expect(!Daemon.runsNatively || total <= 6, "\(total) context switches in 15 s at rest with a broker (\(threads))")
        #expect(await daemon.stop() == 0)
    }

    /// The context switches of the daemon's threads over `window`: their sum, and each thread's by name.
    static func wakeUps(of daemon: Daemon, over window: Duration) async throws -> (total: Int, threads: String) {
        let before = try daemon.contextSwitches
        try await Task.sleep(for: window)
        let after = try daemon.contextSwitches
        let woken = after.map { thread, now in (name: now.name, count: now.count - (before[thread]?.count ?? 0)) }
        let threads = woken.sorted { $0.name < $1.name }.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
        return (woken.reduce(0) { $0 + $1.count }, threads)
    }
}
