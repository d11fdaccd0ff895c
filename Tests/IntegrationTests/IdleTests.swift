import Foundation
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

        let before = try daemon.contextSwitches
        try await Task.sleep(for: .seconds(5))
        let after = try daemon.contextSwitches
        let woken = after.map { thread, now in (name: now.name, count: now.count - (before[thread]?.count ?? 0)) }
        let total = woken.reduce(0) { $0 + $1.count }
        let threads = woken.sorted { $0.name < $1.name }.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
        #expect(!Daemon.runsNatively || total <= 2, "\(total) context switches in 5 s at rest (\(threads))")
        #expect(await daemon.stop() == 0)
    }
}
