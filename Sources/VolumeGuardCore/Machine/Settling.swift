/// The clients whose `pause` or `resume` is answered once the guard has acted on it, so that a client's
/// next request sees the new state and the sink where it should be; or after `wait` at most (the server
/// may be gone). Each is known by the number its shell gave it, which holds the client's reply.
struct Settling: Hashable, Sendable {
    /// How long a client's `pause` or `resume` waits for the guard to act on it before it is answered.
    static let wait: Duration = .seconds(2)

    /// Each waiting client's wish: paused (true) or guarding.
    private var waiters: [Int: Bool] = [:]

    mutating func add(_ waiter: Int, paused: Bool) {
        waiters[waiter] = paused
    }

    /// Forgets `waiter`; whether it was still waiting, to be answered now.
    mutating func remove(_ waiter: Int) -> Bool {
        waiters.removeValue(forKey: waiter) != nil
    }

    /// The waiters whose wish `hasSettled` says the guard has acted on, in the order they came; forgotten.
    mutating func settled(where hasSettled: (_ paused: Bool) -> Bool) -> [Int] {
        let settled = waiters.filter { hasSettled($0.value) }.keys.sorted()
        for waiter in settled { waiters[waiter] = nil }
        return settled
    }
}
