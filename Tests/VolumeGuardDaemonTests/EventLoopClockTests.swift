import Testing
import VolumeGuardDaemon

@Suite("Sleeping on the event loops' clock")
struct EventLoopClockTests {
    @Test("A sleep ends at its deadline, not before")
    func sleepsUntilTheDeadline() async throws {
        let clock = EventLoopClock()
        let start = clock.now
        try await Task.sleep(for: .milliseconds(20), clock: .eventLoop)
        #expect(clock.now - start >= .milliseconds(20))
    }

    @Test("A deadline already passed returns at once, however long ago", .timeLimit(.minutes(1)))
    func pastDeadline() async throws {
        let clock = EventLoopClock()
        try await Task.sleep(until: clock.now - .seconds(1), clock: .eventLoop)
        // Beyond what a TimeAmount holds: clamped to nothing, not to forever.
        try await Task.sleep(until: clock.now - .seconds(Int64.max / 2), clock: .eventLoop)
    }

    @Test("Cancelling a sleeping task ends its sleep with CancellationError", .timeLimit(.minutes(1)))
    func cancelledSleep() async {
        // An hour: were cancellation not to end it, the test would run into its time limit.
        let sleeper = Task { try await Task.sleep(for: .seconds(3600), clock: .eventLoop) }
        // Most likely asleep by then (if not, the sleep is refused at its start: the same promise).
        try? await Task.sleep(for: .milliseconds(50), clock: .eventLoop)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test("A task cancelled before it sleeps does not sleep")
    func cancelledBefore() async {
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await Task.sleep(for: .seconds(3600), clock: .eventLoop)
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}
