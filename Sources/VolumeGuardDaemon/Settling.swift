/// Clients whose `pause` or `resume` is answered once the guard has acted on it, so that a client's next
/// request sees the new state and the sink where it should be; or after `wait` at most (the server may
/// be gone).
struct Settling {
    /// How long a client's `pause` or `resume` waits for the guard to act on it before it is answered.
    static let wait: Duration = .seconds(2)

    private var waiters: [Int: (paused: Bool, reply: CheckedContinuation<Void, Never>)] = [:]
    private var last = 0

    /// Keeps `reply` for a client that asked for `paused`; returns its number, to give up on it by.
    mutating func add(paused: Bool, reply: CheckedContinuation<Void, Never>) -> Int {
        last += 1
        waiters[last] = (paused, reply)
        return last
    }

    /// Answers the waiter numbered `number`, if it is still waiting.
    mutating func answer(_ number: Int) {
        waiters.removeValue(forKey: number)?.reply.resume()
    }

    /// Answers every waiter whose wish `hasSettled` says the guard has acted on.
    mutating func answer(where hasSettled: (_ paused: Bool) -> Bool) {
        for (number, waiter) in waiters where hasSettled(waiter.paused) {
            answer(number)
        }
    }

    /// Answers everyone: the guard is ending.
    mutating func answerAll() {
        answer { _ in true }
    }
}
