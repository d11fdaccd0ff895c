/// Whether the core is paused. A client's `pause` lasts until a `resume`, whoever subscribes or leaves;
/// in `while-subscribed` mode the guard is also paused until a subscriber comes, and again when the last
/// one leaves.
///
/// Two wishes make one decision, and the core is told only when the decision changes, so that a
/// subscriber leaving never undoes a client's pause, nor the reverse.
struct PausePolicy: Hashable, Sendable {
    var mode: GuardMode
    /// A client asked for a pause and has not resumed.
    private var clientPaused = false
    /// Whether anyone is subscribed.
    private var subscribed = false
    /// What the core was last told: paused (true) or guarding. A core starts out guarding.
    private var told = false

    init(mode: GuardMode) {
        self.mode = mode
    }

    enum Event: Hashable, Sendable {
        case clientPaused(Bool)
        case subscribed(Bool)
        case mode(GuardMode)
    }

    /// Takes `event`; returns what to tell the core, if its decision changed.
    mutating func handle(_ event: Event) -> GuardEvent? {
        switch event {
        case .clientPaused(let paused): clientPaused = paused
        case .subscribed(let anyone): subscribed = anyone
        case .mode(let new): mode = new
        }
        return decide()
    }

    /// What to tell the core now, if it was told otherwise: at the start, and after each event.
    mutating func decide() -> GuardEvent? {
        let paused = clientPaused || (mode == .whileSubscribed && !subscribed)
        guard paused != told else { return nil }
        told = paused
        return paused ? .pause : .resume
    }
}
