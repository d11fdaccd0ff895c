import CMalloc
import Synchronization

/// Gives back the heap that many clients left behind. glibc's malloc keeps freed memory in its arenas
/// (one per thread that allocated, up to 8 per core), so after 200 clients have come and gone the daemon
/// holds 2–3 MB it no longer uses. When the clients connected fall to an eighth of the most there were
/// since the last trim, and that was at least `threshold`, `malloc_trim(0)` returns the free pages: once
/// per mass departure, from the departing client's task, with no timer to wake the daemon later. A
/// client that comes and goes now and then never triggers it.
final class HeapTrimmer: Sendable {
    static let threshold = 32

    private struct State {
        var connected = 0
        /// The most clients connected since the last trim.
        var highWater = 0
    }

    private let state = Mutex(State())

    func clientArrived() {
        state.withLock {
            $0.connected += 1
            $0.highWater = max($0.highWater, $0.connected)
        }
    }

    func clientLeft() {
        let due = state.withLock {
            $0.connected -= 1
            guard $0.highWater >= Self.threshold, $0.connected * 8 <= $0.highWater else { return false }
            $0.highWater = $0.connected
            return true
        }
        if due { _ = heap_trim() }
    }
}
