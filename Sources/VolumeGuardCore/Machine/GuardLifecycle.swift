/// The life of the guard's shell, as a value: its attempts to connect to the audio server, and its way to
/// the end. Fed what happens to the shell, with the time it happened, it returns what the shell is to do;
/// the shell (the daemon's `GuardService`, or a simulation) performs that and decides nothing itself. The
/// timer for the machines' wake-ups is `WakeUps`'.
///
/// A failed libpulse context cannot reconnect, so each attempt is a new connection, numbered by its
/// `generation`: what an older attempt still reports (events, replies, its failure told twice: the
/// context's, then a request it cancelled) is stale (`isCurrent`), and acted on never or once.
public struct GuardLifecycle: Hashable, Sendable {
    /// The shell's connection to the audio server.
    public enum Link: Hashable, Sendable {
        /// Attempt `generation` is under way, or waits for its backoff to start.
        case connecting(generation: Int)
        /// Attempt `generation` connected, to `server` (its name and version).
        case connected(generation: Int, server: String)

        public var generation: Int {
            switch self {
            case .connecting(let generation), .connected(let generation, _): generation
            }
        }
    }

    public enum State: Hashable, Sendable {
        /// Not started yet.
        case idle
        /// Guarding, or trying to: the core is fed what the server reports.
        case running(Link)
        /// The core was told to shut down and gives the sinks back over `link`, until `deadline` at most.
        /// No new attempt starts.
        case stopping(Link, deadline: Duration)
        /// Nothing runs any more: no attempt starts, and a timer still pending does nothing.
        case ended
    }

    public enum Event: Hashable, Sendable {
        /// The shell starts.
        case start
        /// Attempt `generation` connected to `server`.
        case connected(generation: Int, server: String)
        /// Attempt `generation` failed to connect, or its connection was lost.
        case lost(generation: Int)
        /// The backoff before attempt `generation` has passed.
        case retryDue(generation: Int)
        /// A graceful shutdown began.
        case shutdown
        /// The core has stopped and given every sink back.
        case givenBack
        /// The shutdown's deadline passed.
        case deadlinePassed
    }

    public enum Action: Hashable, Sendable {
        /// Start attempt `generation`: make a new connection and connect it.
        case connect(generation: Int)
        /// Close the connection of the current attempt, which is over.
        case close
        /// Feed the core `event`.
        case feed(GuardEvent)
        /// Tell `.retryDue(generation:)` after `delay`.
        case retry(generation: Int, after: Duration)
        /// Tell `.deadlinePassed` when `deadline` comes.
        case setDeadline(Duration)
        /// The core did not give every sink back before the deadline: say so.
        case reportNotGivenBack
        /// The shell has ended: it closes its connection once out of the turn this was decided in (that
        /// may be a callback of the connection itself, which libpulse does not let it close there).
        case end
    }

    /// Attempts start fast and back off, doubling, to `maximumBackoff`.
    public static let firstBackoff: Duration = .milliseconds(50)
    public static let maximumBackoff: Duration = .seconds(1)
    /// How long a shutdown waits for the server to take the sinks' levels back before it gives up.
    public static let giveBackTimeout: Duration = .seconds(3)

    public private(set) var state = State.idle
    private var lastGeneration = 0
    private var backoff = Self.firstBackoff
    /// The attempts in a row that failed to connect, since the start or the last connection: the shell
    /// tells the first of a run at warning, and the rest only at debug.
    public private(set) var failedAttempts = 0

    public init() {}

    /// Whether what attempt `generation` reports is to be acted on.
    public func isCurrent(_ generation: Int) -> Bool {
        link?.generation == generation
    }

    /// The server connected to, while connected: its name and version.
    public var server: String? {
        if case .connected(_, let server)? = link { server } else { nil }
    }

    public var hasEnded: Bool { state == .ended }

    /// The connection to the server, while running or stopping.
    public var link: Link? {
        switch state {
        case .running(let link), .stopping(let link, _): link
        case .idle, .ended: nil
        }
    }

    /// Takes `event`, which happened at `now` (on the core's clock); returns what to do, in order.
    public mutating func handle(_ event: Event, at now: Duration) -> [Action] {
        switch event {
        case .start:
            guard state == .idle else { return [] }
            return [attempt()]
        case .connected(let generation, let server):
            guard isCurrent(generation) else { return [] }
            switch state {
            case .running:
                backoff = Self.firstBackoff
                failedAttempts = 0
                state = .running(.connected(generation: generation, server: server))
                return [.feed(.connected)]
            case .stopping(_, let deadline):
                // An attempt that ends after the shutdown began has no sink to give back.
                state = .stopping(.connecting(generation: nextGeneration()), deadline: deadline)
                return [.close]
            case .idle, .ended:
                return []
            }
        case .lost(let generation):
            guard isCurrent(generation) else { return [] }
            let wasConnected = server != nil
            let next = nextGeneration()
            var actions: [Action] = [.close]
            if wasConnected { actions.append(.feed(.disconnected)) } else { failedAttempts += 1 }
            switch state {
            case .running:
                state = .running(.connecting(generation: next))
                actions.append(.retry(generation: next, after: backoff))
                backoff = min(backoff * 2, Self.maximumBackoff)
            case .stopping(_, let deadline):
                state = .stopping(.connecting(generation: next), deadline: deadline)
            case .idle, .ended:
                break
            }
            return actions
        case .retryDue(let generation):
            guard case .running(.connecting(generation)) = state else { return [] }
            return [.connect(generation: generation)]
        case .shutdown:
            if state == .idle {
                // Never started (the sink is not guarded): there is nothing to give back.
                state = .ended
                return [.end]
            }
            guard case .running(let link) = state else { return [] }
            let deadline = now + Self.giveBackTimeout
            state = .stopping(link, deadline: deadline)
            return [.feed(.shutdown), .setDeadline(deadline)]
        case .givenBack:
            guard case .stopping = state else { return [] }
            state = .ended
            return [.end]
        case .deadlinePassed:
            guard case .stopping = state else { return [] }
            state = .ended
            return [.reportNotGivenBack, .end]
        }
    }

    /// Starts a new attempt at once.
    private mutating func attempt() -> Action {
        let generation = nextGeneration()
        state = .running(.connecting(generation: generation))
        return .connect(generation: generation)
    }

    /// Retires the current attempt: what it still reports is stale from now on.
    private mutating func nextGeneration() -> Int {
        lastGeneration += 1
        return lastGeneration
    }
}
