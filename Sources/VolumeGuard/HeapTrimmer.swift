import CMalloc
import Synchronization

/// Gives the heap that many clients left behind back to the system. glibc's malloc keeps freed memory
/// in its arenas (one per thread that allocated, up to 8 per core), so after 200 clients have come and
/// gone the daemon holds 2–3 MB it no longer uses. Once at least `threshold` clients have left since the
/// most there were, and none has left for `quiet`, `malloc_trim(0)` returns the free pages. A client
/// that comes and goes now and then never triggers it.
final class HeapTrimmer: Sendable {
    static let threshold = 32
    static let quiet: Duration = .seconds(1)

    private struct State {
        var connected = 0
        /// The most clients connected since the last trim.
        var highWater = 0
        /// Counts departures, so that only the last of a burst trims.
        var departures = 0
    }

    private let state = Mutex(State())

    func clientArrived() {
        state.withLock {
            $0.connected += 1
            $0.highWater = max($0.highWater, $0.connected)
        }
    }

    /// Returns once the heap is trimmed, or at once when this departure does not call for it.
    func clientLeft() async {
        let departure: Int? = state.withLock {
            $0.connected -= 1
            $0.departures += 1
            return $0.highWater - $0.connected >= Self.threshold ? $0.departures : nil
        }
        guard let departure else { return }
        do { try await Task.sleep(for: Self.quiet) } catch { return }
        let due = state.withLock {
            guard $0.departures == departure else { return false }
            $0.highWater = $0.connected
            return true
        }
        if due { _ = heap_trim() }
    }
}
