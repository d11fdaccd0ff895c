import Synchronization

/// `operation`'s outcome, or nil when it has not ended within `limit`. `doctor` must never hang, on a
/// daemon that accepts and never replies, an audio server that does not answer, a listener behind a
/// firewall: an operation past its limit is left to run on, unawaited, and ends with the process.
func withinDeadline<Value: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async throws -> Value
) async -> Result<Value, any Error>? {
    let first = FirstToEnd()
    return await withCheckedContinuation { (done: CheckedContinuation<Result<Value, any Error>?, Never>) in
        Task {
            let outcome: Result<Value, any Error>
            do {
                outcome = .success(try await operation())
            } catch {
                outcome = .failure(error)
            }
            if first.claim() { done.resume(returning: outcome) }
        }
        Task {
            try? await Task.sleep(for: limit)
            if first.claim() { done.resume(returning: nil) }
        }
    }
}

/// Which of two racers ended first: the one whose `claim` returned true.
private final class FirstToEnd: Sendable {
    private let ended = Atomic(false)

    func claim() -> Bool {
        ended.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
