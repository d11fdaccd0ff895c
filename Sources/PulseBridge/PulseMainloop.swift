import CPulse
import Glibc
import Synchronization

/// libpulse's mainloop on a thread of its own, serving as a serial executor: an actor that runs on it
/// (`PulseConnection`, and the guard) calls libpulse directly, and libpulse's callbacks reach it on the
/// same thread. An event, the read it asks for, the reply and the write after it cost no lock and no hop
/// between threads.
///
/// It is `pa_threaded_mainloop` without the lock: jobs run between the mainloop's iterations, on its
/// thread, so nothing else ever touches libpulse. A job enqueued from another thread wakes the loop only
/// while it polls, from inside the poll function's window: libpulse empties its wake-up pipe before each
/// poll, so a wake-up written earlier would be lost.
///
/// Its timers (`run(after:_:)`) are libpulse's own time events: the loop's poll waits for the earliest,
/// and no other thread wakes for them.
public final class PulseMainloop: SerialExecutor, @unchecked Sendable {
    /// The process's mainloop, started on first use. It runs for the life of the process, as SwiftNIO's
    /// singleton event loop does.
    public static let shared = PulseMainloop()

    private struct Queue {
        var jobs: [UnownedJob] = []
        /// The loop is blocked in `poll`, or about to be: a new job must wake it.
        var polling = false
    }

    private let mainloop: OpaquePointer
    private let queue = Mutex(Queue())
    private let thread = Atomic<pthread_t>(0)

    private init() {
        mainloop = pa_mainloop_new()!
        let me = Unmanaged.passRetained(self).toOpaque()
        pa_mainloop_set_poll_func(
            mainloop,
            { fds, count, timeout, me in
                Unmanaged<PulseMainloop>.fromOpaque(me!).takeUnretainedValue().poll(fds, count, timeout)
            }, me)
        var handle = pthread_t()
        let started = pthread_create(
            &handle, nil,
            { me in
                Unmanaged<PulseMainloop>.fromOpaque(me!).takeUnretainedValue().run()
            }, me)
        precondition(started == 0, "cannot start the libpulse thread: \(String(cString: strerror(started)))")
    }

    /// libpulse's mainloop API, for contexts made on this loop.
    var api: UnsafeMutablePointer<pa_mainloop_api> { pa_mainloop_get_api(mainloop) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { queue in
            queue.jobs.append(job)
            if queue.polling, queue.jobs.count == 1 { pa_mainloop_wakeup(mainloop) }
        }
    }

    /// Runs `body` on the loop's thread once `delay` has passed. Called on the loop's thread. Timers that
    /// come due in the same turn run in no particular order.
    ///
    /// The due time is given to libpulse as wall-clock time, which it turns into its monotonic clock at
    /// once: a later change of the wall clock does not move the timer. That clock stops while the machine
    /// sleeps, so a timer pending across a suspend runs that much later.
    public func run(after delay: Duration, _ body: @escaping @Sendable () -> Void) {
        var due = timeval()
        pa_gettimeofday(&due)
        pa_timeval_add(&due, pa_usec_t(max(delay, .zero) / .microseconds(1)))
        let timer = Unmanaged.passRetained(Timer(body)).toOpaque()
        _ = api.pointee.time_new(
            api, &due,
            { api, event, _, timer in
                api!.pointee.time_free(event)
                Unmanaged<Timer>.fromOpaque(timer!).takeRetainedValue().body()
            }, timer)
    }

    /// A timer's work, kept alive by its time event until it fires.
    private final class Timer {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// What `assumeIsolated` asks outside a job: libpulse's callbacks run on the loop's thread too.
    public func isIsolatingCurrentContext() -> Bool? {
        pthread_equal(pthread_self(), thread.load(ordering: .acquiring)) != 0
    }

    private func run() -> Never {
        thread.store(pthread_self(), ordering: .releasing)
        pthread_setname_np(pthread_self(), "libpulse")
        while true {
            for job in queue.withLock({ queue in
                defer { queue.jobs = [] }; return queue.jobs
            }) {
                job.runSynchronously(on: asUnownedSerialExecutor())
            }
            pa_mainloop_iterate(mainloop, 1, nil)
        }
    }

    /// libpulse's poll: blocks only while no job waits, and lets `enqueue` wake it meanwhile.
    private func poll(_ fds: UnsafeMutablePointer<pollfd>?, _ count: UInt, _ timeout: Int32) -> Int32 {
        let idle = queue.withLock { queue in
            queue.polling = queue.jobs.isEmpty
            return queue.polling
        }
        let ready = Glibc.poll(fds, nfds_t(count), idle ? timeout : 0)
        queue.withLock { $0.polling = false }
        return ready
    }
}
