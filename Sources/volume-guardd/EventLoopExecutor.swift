import CConcurrencyHooks
import NIOCore
import NIOPosix

/// Swift concurrency's global executor, moved onto SwiftNIO's singleton event loop group (one loop in
/// the daemon: `VolumeGuardDaemon.main`).
///
/// On Linux the default global executor is libdispatch's worker pool. Once a task has run on it, its
/// monitor wakes the process every second for as long as the process lives, and each worker it started
/// wakes once more to retire, 5 s after its last job: a daemon that waits for key presses would never
/// be idle. An event loop with nothing to do sleeps in `epoll_wait` with no timeout (the daemon's waits
/// are timers of the same loops: `EventLoopClock`). This is what SwiftNIO's
/// `NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()` does, but
/// that finds the runtime's hook with `dlsym`, which sees nothing in an executable linked with the
/// static Swift runtime.
enum EventLoopExecutor {
    /// Installs the hook; false if something else had installed its own (nothing changes then).
    /// Call it first thing in `main`, on the main actor, before any task has been enqueued.
    static func install() -> Bool {
        concurrency_hooks_install { job in
            // `any()` stays on the current loop when called from one: no hop between a task's steps.
            MultiThreadedEventLoopGroup.singleton.any().enqueue(ExecutorJob(unsafeBitCast(job, to: UnownedJob.self)))
        }
    }
}
