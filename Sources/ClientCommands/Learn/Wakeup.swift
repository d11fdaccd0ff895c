import Glibc
import NIOPosix
import Synchronization

/// What `learn`'s listening sleeps on until something happens: the devices' and the directory watch's
/// descriptors, a deadline, and a pipe that the sink's changes and the ending signals ring.
///
/// poll(2) runs in NIO's thread pool, not on the event loop that every task of the process prefers: the
/// sink's task, which rings it, runs meanwhile. So learn wakes when a key comes, not every few milliseconds.
final class Wakeup: Sendable {
    /// The pipe's ends, nonblocking; -1 when none could be made, and then only a descriptor or the
    /// deadline wakes.
    private let descriptor: Int32
    private let ringer: Int32
    /// The end a signal handler writes to (a handler can reach no instance): the listening's, while it lasts.
    private static let forSignals = Atomic<Int32>(-1)

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFL, O_NONBLOCK) }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        } else {
            ends = [-1, -1]
        }
        (descriptor, ringer) = (ends[0], ends[1])
        Self.forSignals.store(ringer, ordering: .relaxed)
    }

    deinit {
        Self.forSignals.store(-1, ordering: .relaxed)
        for end in [descriptor, ringer] where end >= 0 { close(end) }
    }

    /// Ends the current or the next wait at once.
    func ring() {
        Self.ring(ringer)
    }

    /// `ring` from a signal handler: a write(2), which is async-signal-safe.
    static func ringFromSignal() {
        ring(forSignals.load(ordering: .relaxed))
    }

    private static func ring(_ descriptor: Int32) {
        guard descriptor >= 0 else { return }
        var one: UInt8 = 1
        _ = write(descriptor, &one, 1)
    }

    /// Waits until one of `descriptors` can be read (or has hung up), the wake-up rings, or `timeout` has
    /// passed.
    func wait(for descriptors: [Int32], timeout: Duration) async {
        let entries = (descriptors + [descriptor]).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let milliseconds = max(0, Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000 + 1))
        _ = try? await NIOThreadPool.singleton.runIfActive {
            var entries = entries
            _ = poll(&entries, nfds_t(entries.count), milliseconds)
        }
        // Every ring so far is answered by this wake-up: the pipe emptied.
        var rung = [UInt8](repeating: 0, count: 64)
        while descriptor >= 0, read(descriptor, &rung, rung.count) > 0 {}
    }
}
