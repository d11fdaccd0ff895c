import NIOCore
import NIOPosix

/// SwiftNIO's one event loop as a task executor (SE-0417): the executor that every task of the process
/// prefers, so that no task runs on Swift concurrency's default executor, libdispatch's worker pool.
///
/// Once a worker of that pool has run a job, libdispatch starts a monitor of the pool
/// (`_dispatch_workq_monitor_pools`, a timer on its manager thread that is never cancelled), which
/// wakes the process every second for the rest of its life. With this preference set before the first
/// job (`VolumeGuardCommand.main`), nonisolated functions, child tasks and default actors run on the
/// loop instead, and a daemon at rest sleeps until something happens. Unstructured tasks do not inherit
/// the preference: the daemon makes none, and those of its libraries are noted in docs/DESIGN.md
/// ("Threads").
public final class EventLoopExecutor: TaskExecutor {
    /// SwiftNIO's singleton event loop, made here with one thread: the daemon's network work is small, and a
    /// many-core desktop should not get a thread per core for it (docs/DESIGN.md, "Threads"). Its first use
    /// must come before anything else uses SwiftNIO's singletons.
    public static let shared: EventLoopExecutor = {
        NIOSingletons.groupLoopCountSuggestion = 1
        return EventLoopExecutor(loop: MultiThreadedEventLoopGroup.singleton.next())
    }()

    private let loop: any EventLoop

    private init(loop: any EventLoop) {
        self.loop = loop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
