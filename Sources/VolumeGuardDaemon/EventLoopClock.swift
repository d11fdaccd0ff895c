import NIOCore
import NIOPosix

/// `ContinuousClock`'s time, with sleeps that are timers of SwiftNIO's singleton event loops.
///
/// Every wait of the daemon sleeps on this clock. On Linux the standard clocks' `Task.sleep` is a
/// libdispatch timer whose job runs on libdispatch's worker pool, and once that pool has run anything
/// its monitor wakes the process every second for good (docs/PERFORMANCE.md, "Idle"). The event loops
/// already run the control socket and, in the daemon, every task; a loop with no timer due sleeps in
/// `epoll_wait` with no timeout. A cancelled sleep ends at once and its timer's work never runs (the loop
/// may still wake once at the old deadline: SwiftNIO leaves its timer armed).
///
/// The loops' timers run on the monotonic clock, which stops while the system is suspended: a sleep
/// that spans a suspend ends late by that time, never early.
public struct EventLoopClock: Clock {
    public typealias Instant = ContinuousClock.Instant

    public init() {}

    public var now: Instant { .now }

    public var minimumResolution: Duration { ContinuousClock().minimumResolution }

    /// Throws `CancellationError` if the task is cancelled before `deadline`. The tolerance is not used:
    /// the loops fire a timer as soon as it is due.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let timer = loop.scheduleTask(in: TimeAmount(max(.zero, Instant.now.duration(to: deadline)))) {}
        try await withTaskCancellationHandler {
            do {
                try await timer.futureResult.get()
            } catch {
                // The timer's work cannot fail: it was cancelled.
                throw CancellationError()
            }
        } onCancel: {
            timer.cancel()
        }
    }
}

extension Clock where Self == EventLoopClock {
    /// The clock of every wait in the daemon: `try await Task.sleep(for: delay, clock: .eventLoop)`.
    public static var eventLoop: EventLoopClock { EventLoopClock() }
}
