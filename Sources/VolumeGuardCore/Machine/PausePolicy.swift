/// Whether the core is paused. A client's `pause` lasts until a `resume`, whoever subscribes or leaves;
/// a pause held by a client's connection lasts until that connection closes or lets it go; in
/// `while-subscribed` mode the guard is also paused until a subscriber comes, and again when the last one
/// leaves.
///
/// Three wishes make one decision, and the core is told only when the decision changes, so that a
/// subscriber leaving never undoes a client's pause, nor the reverse. A held pause ends with its
/// connection, so that a client killed while it holds one (`learn`, SIGKILL) never leaves the guard paused.
struct PausePolicy: Hashable, Sendable {
    var mode: GuardMode
    /// A client asked for a pause and has not resumed.
    private var clientPaused = false
    /// The connections that hold a pause, by the number their shell gave them.
    private var holders: Set<Int> = []
    /// Whether anyone is subscribed.
    private var subscribed = false
    /// What the core was last told: paused (true) or guarding. A core starts out guarding.
    private var told = false

    init(mode: GuardMode) {
        self.mode = mode
    }

    enum Event: Hashable, Sendable {
        /// A client's `pause` (true), or its `resume`, which ends every pause, held ones too: the one who
        /// says resume wants the guard back.
        case clientPaused(Bool)
        /// Connection `holder` holds a pause (true), or lets its own go (false): its `resume` with
        /// `while_connected`, or its end.
        case held(Bool, by: Int)
        case subscribed(Bool)
        case mode(GuardMode)
    }

    /// Takes `event`; returns what to tell the core, if its decision changed.
    mutating func handle(_ event: Event) -> GuardEvent? {
        switch event {
        case .clientPaused(let paused):
            clientPaused = paused
            if !paused { holders = [] }
        case .held(true, let holder): holders.insert(holder)
        case .held(false, let holder): holders.remove(holder)
        case .subscribed(let anyone): subscribed = anyone
        case .mode(let new): mode = new
        }
        return decide()
    }

    /// What to tell the core now, if it was told otherwise: at the start, and after each event.
    mutating func decide() -> GuardEvent? {
        let paused = clientPaused || !holders.isEmpty || (mode == .whileSubscribed && !subscribed)
        guard paused != told else { return nil }
        told = paused
        return paused ? .pause : .resume
    }
}
