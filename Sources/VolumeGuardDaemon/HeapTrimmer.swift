import CMalloc
import Synchronization

/// Gives back the heap that many clients left behind. glibc's malloc keeps freed memory in its arenas
/// (one per thread that allocated, up to 8 per core), so after 200 clients have come and gone the daemon
/// holds 1–3 MB it no longer uses.
///
/// When the clients connected fall to an eighth of the most there were since the last trim, and that
/// was at least `threshold`, `malloc_trim(0)` returns the free pages once the departures have paused
/// for `settle`: the channels of the last ones to leave are torn down on their event loops just after,
/// and their memory is only free then. The departing client's task waits (one wait per wave of
/// departures, however many leave), so nothing is left to wake an idle daemon later. A client that comes
/// and goes now and then never triggers it.
final class HeapTrimmer: Sendable {
    static let threshold = 32
    static let settle: Duration = .milliseconds(100)

    private struct State {
        var connected = 0
        /// The most clients connected since the last trim.
        var highWater = 0
        /// When to trim, once a wave of departures calls for it; later departures push it back.
        var due: ContinuousClock.Instant?
        /// Whether a departing client's task is waiting to trim.
        var waiting = false
    }

    private let state = Mutex(State())

    func clientArrived() {
        state.withLock {
            $0.connected += 1
            $0.highWater = max($0.highWater, $0.connected)
        }
    }

    /// Returns at once, or, in the one departure that waits for the wave to end, after the trim.
    func clientLeft() async {
        let waits = state.withLock { state -> Bool in
            state.connected -= 1
            if state.due != nil || (state.highWater >= Self.threshold && state.connected * 8 <= state.highWater) {
                state.due = .now + Self.settle
            }
            guard state.due != nil, !state.waiting else { return false }
            state.waiting = true
            return true
        }
        guard waits else { return }
        while let due = state.withLock({ $0.due }) {
            do {
                try await Task.sleep(until: due, clock: .eventLoop)
            } catch {
                state.withLock { $0.waiting = false }
                return
            }
            let trims = state.withLock { state -> Bool in
                guard let due = state.due, due <= .now else { return false }
                state.due = nil
                state.waiting = false
                state.highWater = state.connected
                return true
            }
            if trims {
                _ = heap_trim()
                return
            }
        }
    }
}
