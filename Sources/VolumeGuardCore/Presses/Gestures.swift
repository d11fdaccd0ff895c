import GuardProtocol

/// A gesture made of presses: a key held down, pressed twice quickly, or pressed once and let be (a tap).
public struct Gesture: Hashable, Sendable {
    public var kind: GestureKind
    /// The volume key; nil for another key of a device.
    public var direction: Direction?
    /// The device's key code; nil for presses seen on the sink.
    public var key: UInt16?
    /// The seq of the press that completed the gesture.
    public var seq: UInt64
    /// How many key steps the gesture spans so far.
    public var presses: Int
    public var origin: Origin
    /// Why a device's hold ended: its key's release cause. Nil for the sink's gestures, which are guessed
    /// from timing alone.
    public var cause: ReleaseCause?

    public init(
        kind: GestureKind, direction: Direction?, key: UInt16? = nil, seq: UInt64, presses: Int, origin: Origin,
        cause: ReleaseCause? = nil
    ) {
        self.kind = kind
        self.direction = direction
        self.key = key
        self.seq = seq
        self.presses = presses
        self.origin = origin
        self.cause = cause
    }
}

/// Finds holds and double presses of the sink's presses in their timing alone (a device's keys have real
/// downs and ups: `KeysDown` times those).
///
/// A held key sends its first press, then after the repeat delay (kernel 250 ms, GNOME 500 ms, KDE
/// 600 ms) repeats every period (33, 30, 40 ms). A hold starts at the second repeat, once an interval at
/// repeat pace has been seen; it ends when no press comes for three of the periods observed (and no less
/// than `repeatPeriod`), not after a fixed long timeout. A double press is two presses inside
/// `doubleWindow` that no repeat follows; it is told only once a repeat could no longer come, since a
/// second press after 250 ms is also how a held key's first repeat looks. A tap is a press that none of
/// the gestures looked for on its key claimed (`GestureUses`): told when the time a first repeat (if a
/// hold is looked for) or a second press (if a double is) may take has passed, at once if neither is
/// (`Thresholds.tapDelay`). Two presses that are neither a hold nor a double looked for are two taps.
/// Holds are found whether looked for or not, so that a held key's repeats are no taps; one not looked
/// for is not told. Plain presses are never delayed: gestures are extra.
public struct GestureDetector: Hashable, Sendable {
    public struct Thresholds: Hashable, Sendable {
        /// The longest interval between repeats that still counts as auto-repeat (Bluetooth remotes
        /// repeat slower than keyboards).
        public var repeatPeriod: Duration
        /// The longest delay before a held key's first repeat.
        public var repeatDelay: Duration
        /// The longest interval between the two presses of a double press.
        public var doubleWindow: Duration
        /// How long a device's key stays down before it is held.
        public var holdDelay: Duration

        public init(
            repeatPeriod: Duration = .milliseconds(150), repeatDelay: Duration = .milliseconds(800),
            doubleWindow: Duration = .milliseconds(400), holdDelay: Duration = .milliseconds(500)
        ) {
            self.repeatPeriod = repeatPeriod
            self.repeatDelay = repeatDelay
            self.doubleWindow = doubleWindow
            self.holdDelay = holdDelay
        }

        /// How long after its press a tap is told, at the soonest, on a key that looks for `lookedFor`: on
        /// a device, once no second down can make it a double (and, where a hold is looked for, its key is
        /// up); on the sink, once neither a first repeat nor a second press can come; a client's names its
        /// gesture, so its tap waits for nothing. An action on taps waits this long.
        public func tapDelay(on source: Source, lookingFor lookedFor: GestureUses.LookedFor) -> Duration {
            let double = lookedFor.double ? doubleWindow : .zero
            switch source {
            case .input: return double
            case .sink: return max(lookedFor.hold ? repeatDelay : .zero, double)
            case .client: return .zero
            }
        }
    }

    /// What the detectors are configured with: when presses make gestures, and which gestures each key
    /// looks for.
    public struct Configuration: Hashable, Sendable {
        public var thresholds: Thresholds
        public var uses: GestureUses

        public init(thresholds: Thresholds = Thresholds(), uses: GestureUses = GestureUses()) {
            self.thresholds = thresholds
            self.uses = uses
        }
    }

    /// A run of presses of one direction, each soon after the one before.
    private struct Run: Hashable, Sendable {
        var direction: Direction
        var sink: String
        /// What its key looks for, as the configuration said at its first press.
        var lookedFor: GestureUses.LookedFor
        var first: Duration
        /// The seq and key steps of its first press: a tap of its own when a pair is no double.
        var firstSeq: UInt64
        var firstPresses: Int
        var last: Duration
        var lastSeq: UInt64
        var presses: Int
        var pressCount: Int
        /// The shortest interval between the run's presses after its first (the repeat period).
        var period: Duration?
        var holding = false

        func gesture(_ kind: GestureKind) -> Gesture {
            Gesture(kind: kind, direction: direction, seq: lastSeq, presses: kind == .double ? 2 : presses, origin: .sink(sink))
        }

        /// Each of its presses as a tap (it has one or two: a third is a repeat's).
        var taps: [Gesture] {
            let last = gesture(.tap)
            guard pressCount == 2 else { return [last] }
            var first = last
            (first.seq, first.presses) = (firstSeq, firstPresses)
            var second = last
            second.presses = presses - firstPresses
            return [first, second]
        }
    }

    let configuration: Configuration
    private var run: Run?
    var thresholds: Thresholds { configuration.thresholds }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Takes a press of the sink named `sink`, seen at `now`; returns the gestures it completes (a hold ending on a change of
    /// direction, a hold starting) and, if the detector needs to look again later, when.
    public mutating func press(_ direction: Direction, seq: UInt64, count: Int, sink: String, at now: Duration) -> (gestures: [Gesture], wakeUp: Duration?) {
        guard direction != .mute else { return ([], nil) }
        var gestures: [Gesture] = []
        if var current = run, current.direction == direction, current.sink == sink, now - current.last < window(after: current) {
            let interval = now - current.last
            if current.pressCount > 1 { current.period = min(current.period ?? interval, interval) }
            current.last = now
            current.lastSeq = seq
            current.presses += count
            current.pressCount += 1
            if !current.holding, let period = current.period, period <= thresholds.repeatPeriod {
                current.holding = true
                if current.lookedFor.hold { gestures.append(current.gesture(.holdStart)) }
            }
            run = current
        } else {
            gestures += finish(at: now, force: true)
            let lookedFor = configuration.uses.lookedFor(direction: direction, key: nil, origin: .sink(sink))
            run = Run(
                direction: direction, sink: sink, lookedFor: lookedFor, first: now, firstSeq: seq, firstPresses: count, last: now, lastSeq: seq,
                presses: count, pressCount: 1)
            // A key that looks for neither a hold nor a double: its press is a tap at once.
            gestures += finish(at: now, force: false)
        }
        return (gestures, run.map { window(after: $0) })
    }

    /// Looks again at `now`: a hold whose repeats stopped ends, a pair of presses no repeat followed is a
    /// double press, and a press nothing followed is a tap. Returns when to look again, if still needed.
    public mutating func wakeUp(at now: Duration) -> (gestures: [Gesture], wakeUp: Duration?) {
        let gestures = finish(at: now, force: false)
        return (gestures, run.map { max(.zero, $0.last + window(after: $0) - now) })
    }

    /// The server went away: no repeat can be seen, so a hold ends now. A press not yet told is no tap
    /// then: a repeat that would have made it a hold may have been lost with the server.
    public mutating func interrupt(at now: Duration) -> [Gesture] {
        finish(at: now, force: true).filter { $0.kind != .tap }
    }

    /// Ends the current run if it is over (or `force`), telling what it was.
    private mutating func finish(at now: Duration, force: Bool) -> [Gesture] {
        guard let current = run, force || now - current.last >= window(after: current) else { return [] }
        run = nil
        if current.holding {
            return current.lookedFor.hold ? [current.gesture(.holdEnd)] : []
        }
        if current.pressCount == 2, current.lookedFor.double, current.last - current.first <= thresholds.doubleWindow {
            return [current.gesture(.double)]
        }
        return current.taps
    }

    /// How long after a run's last press the next may come and still belong to it; past that the run
    /// is over. Held: three of its observed repeat periods, and no less than the longest period taken
    /// for auto-repeat (jitter). After one press: the time a first repeat or a second press may take,
    /// of those its key looks for. After two, not yet held: one repeat period.
    private func window(after run: Run) -> Duration {
        if run.holding, let period = run.period { return max(period * 3, thresholds.repeatPeriod) }
        if run.pressCount == 1 { return thresholds.tapDelay(on: .sink, lookingFor: run.lookedFor) }
        return thresholds.repeatPeriod
    }
}
