/// The guard's decisions, as a pure value: fed `GuardEvent`s in the order they happened, each with the
/// time it happened, it returns the `GuardAction`s to perform. No IO, no clock of its own, no threads:
/// every rule can be tested by feeding events.
///
/// How it tells a person's change from its own echo: the server's change events carry no values and no
/// author, so the core reads the sink after each event and compares the reading with `seen`, the level
/// it has accounted for. It never reads while one of its writes is unacknowledged, and it reads once
/// more after every acknowledgement (the *verification*). A write it has issued moves `seen` to the
/// level that write sets, so the echo compares equal and only a change made on top of it is a press,
/// counted from the written level, not from where the sink was before.
///
/// Faster presses change two things. In a run (a press in the last `KeyStep.isolation`) a reading may be
/// counted from the last press's level (`base(for:in:)`). In a burst (presses closer than `burstGap`,
/// which only programs make) nothing is written until it pauses.
public struct GuardCore: Sendable {
    public struct Configuration: Hashable, Sendable {
        public var selection: SinkSelection
        /// The key step in raw units, or nil to learn it from presses.
        public var keyStep: UInt32?
        /// How far a server's reading of the held level may stray from what was written (pipewire-pulse
        /// stores volumes as floats) and still be taken as its echo.
        public var echoTolerance: UInt32
        /// How often a reset that did not take is issued again before the guard gives up on it.
        public var resetRetries: Int
        /// Whether mute changes are presses and put back; when false they pass through, and the mute
        /// given back at the end is the sink's own at that moment.
        public var guardsMute: Bool
        /// How far inside 0 and 100 % the held level is kept, in raw units (see `HeldLevel`).
        public var clampMargin: UInt32
        public var gestures: GestureDetector.Configuration

        public init(
            selection: SinkSelection = .defaultSink, keyStep: UInt32? = nil, echoTolerance: UInt32 = 8,
            resetRetries: Int = 3, guardsMute: Bool = true, clampMargin: UInt32 = HeldLevel.defaultMargin,
            gestures: GestureDetector.Configuration = .init()
        ) {
            self.selection = selection
            self.gestures = gestures
            self.keyStep = keyStep
            self.echoTolerance = echoTolerance
            self.resetRetries = resetRetries
            self.guardsMute = guardsMute
            self.clampMargin = clampMargin
        }
    }

    public private(set) var state: GuardState = .connecting
    public private(set) var guarded: Guarded?
    private var counter: PressCounter
    private var contest = Contest()
    private var gestures: GestureDetector
    /// The time of the event being handled.
    private var now: Duration = .zero
    public private(set) var configuration: Configuration

    private var follower: SinkFollower
    private var custodian: Custodian
    private var inFlight = InFlight()
    private var ids = RequestIDs()
    private var outbox: [GuardAction] = []

    /// A core that starts with `remembered`: the original levels a previous run recorded and did not
    /// give back (it was killed). A sink among them is given that level in the end, not the one the
    /// previous run left it at.
    public init(configuration: Configuration = Configuration(), remembered: [String: SinkLevel] = [:]) {
        self.configuration = configuration
        counter = PressCounter(keyStep: configuration.keyStep)
        follower = SinkFollower(selection: configuration.selection)
        self.gestures = GestureDetector(configuration: configuration.gestures)
        custodian = Custodian(recorded: remembered)
    }

    public var presses: PressCounts { counter.presses }
    /// The seq of the last press published; 0 before the first.
    public var lastSeq: UInt64 { counter.lastSeq }
    public var keyStep: KeyStep { counter.keyStep }

    /// The original levels the core is answerable for, by sink name: the held sink's, those being given
    /// back, and those of sinks lost (or recorded by a previous run) that will be given back if seen.
    public var custody: [String: SinkLevel] { custodian.custody(holding: guarded) }

    /// Whether another client fought the guard over this sink, and the guard now holds that client's level.
    public var isContested: Bool { guarded?.contested ?? false }

    /// True once every sink given back has been read back at its original level (or given up on).
    public var isReleased: Bool { custodian.isReleased }

    /// Feeds one event that happened at `now` (on any monotonic clock); returns what to do about it, in order.
    public mutating func handle(_ event: GuardEvent, at now: Duration) -> [GuardAction] {
        self.now = now
        switch event {
        case .connected:
            // Stopped is final: a connection that comes back after shutdown must not adopt a sink again.
            guard state != .stopped else { break }
            forgetConnection()
            follower.connected()
            guard state != .paused else {
                // Paused, the sinks have their levels back: so must those a previous run left held.
                if !custodian.remembered.isEmpty { outbox.append(.readSinks(inFlight.read(&ids))) }
                break
            }
            setState(.connecting)
            ask(follower.seek)
        case .disconnected:
            gestures.interrupt(at: now).forEach { outbox.append(.gesture($0)) }
            if let guarded { custodian.remember(guarded) }
            forgetConnection()
            if state != .paused && state != .stopped { setState(.connecting) }
        case .serverChanged:
            if state != .stopped { ask(follower.askDefault) }
        case .defaultSink(let name):
            guard state != .stopped, follower.follow(name, holding: guarded?.name, reading: inFlight.isReading) else { break }
            release()
            guard state != .paused else { break }
            if let name { ask(.read(.name(name))) } else { awaitDefault() }
        case .sinkAdded(let index):
            guard guarded == nil, !inFlight.isReading, state == .noSink else { break }
            ask(follower.sinkAdded(index))
        case .sinksRead(let ticket, let sinks):
            guard inFlight.answered(ticket) != nil else { break }
            guard state != .paused else {
                outbox += custodian.giveBackRemembered(sinks, ids: &ids)
                break
            }
            received(follower.chosen(among: sinks), changes: 0)
        case .sinkChanged(let index):
            guard index == guarded?.index else { break }
            inFlight.sinkChanged()
            guarded?.echo.sinkChanged()
            readIfDue()
        case .sinkRemoved(let index):
            guard let lost = guarded, index == lost.index else { break }
            lose(lost)
        case .sinkRead(let ticket, let reading):
            if let actions = custodian.checked(ticket, reading, retries: configuration.resetRetries, ids: &ids) {
                outbox += actions
                break
            }
            guard let changes = inFlight.answered(ticket) else { break }
            received(reading, changes: changes)
            readIfDue()
        case .written(let tag, _):
            if let actions = custodian.acknowledged(tag, ids: &ids) {
                outbox += actions
                break
            }
            guard inFlight.acknowledged(tag) else { break }
            contest.acknowledged(at: now)
            readIfDue()
        case .wakeUp:
            wokeUp()
        case .pause:
            guard state != .paused, state != .stopped else { break }
            stopHolding()
            setState(.paused)
        case .resume:
            guard state == .paused else { break }
            custodian.forgetRemembered()
            // A read made while paused (giving back recorded levels) is not one to guard by.
            inFlight.forget()
            setState(.connecting)
            ask(follower.seek)
        case .reconfigure(let new):
            reconfigure(new)
        case .shutdown:
            guard state != .stopped else { break }
            stopHolding()
            // A sink that is gone at the end cannot be given back: its record ends with this run.
            custodian.forgetRemembered()
            setState(.stopped)
        }
        if let record = custodian.announce(holding: guarded) { outbox.insert(record, at: 0) }
        defer { outbox = [] }
        return outbox
    }

    /// Takes a new configuration. A sink the new selection does not pick is given back and another is
    /// looked for; a sink it still picks goes on being held (with its original: giving it back and
    /// reading it again could meet pipewire-pulse's stale cache), at the level the new margin and mute
    /// rule give.
    private mutating func reconfigure(_ new: Configuration) {
        let old = configuration
        configuration = new
        follower.selection = new.selection
        counter.configure(keyStep: new.keyStep)
        guard state == .guarding || state == .noSink else { return }
        if new.selection != old.selection, !(guarded.map { new.selection.admits($0.name) } ?? false) {
            release()
            follower.forget()
            ask(follower.seek)
            return
        }
        guard var current = guarded, new.clampMargin != old.clampMargin || new.guardsMute != old.guardsMute else { return }
        current.echo.hold(HeldLevel(holding: current.original.volume, margin: new.clampMargin))
        current.contested = false
        guarded = current
        // The next reading is judged against the new target and corrected to it.
        inFlight.markDue()
        readIfDue()
    }

    /// There is no sink to hold (yet).
    private mutating func awaitDefault() {
        setState(.noSink)
        ask(follower.noSink())
    }

    /// How often, at most, the default sink is asked for again before the guard waits for events alone.
    public static let defaultRecheckLimit = SinkFollower.recheckLimit

    /// Asks the server what the follower needs to find the sink to hold.
    private mutating func ask(_ request: SinkFollower.Request?) {
        switch request {
        case nil: break
        case .readDefaultSink: outbox.append(.readDefaultSink)
        case .read(let query): outbox.append(.readSink(query, inFlight.read(&ids)))
        case .readAll: outbox.append(.readSinks(inFlight.read(&ids)))
        case .recheck(let delay): outbox.append(.wakeUp(after: delay))
        case .reconnect: outbox.append(.reconnect)
        }
    }

    private mutating func adopt(_ reading: SinkState) {
        let (original, recovered) = custodian.take(reading)
        if let recovered { outbox.append(.report(recovered)) }
        follower.found()
        contest = Contest()
        let held = HeldLevel(holding: original.volume, margin: configuration.clampMargin)
        let level = SinkLevel(volume: reading.volume, muted: reading.muted)
        guarded = Guarded(reading.index, name: reading.name, original: original, held: held, at: level)
        setState(.guarding)
        outbox.append(.report(.guarding(sink: reading.name, original: original, held: held.volume)))
        holdTarget(correcting: level, attempt: 0)
    }

    /// Gives the guarded sink its original level back and stops holding it.
    private mutating func release() {
        guard let guarded else { return }
        outbox += custodian.giveBack(guarded.index, named: guarded.name, original: guarded.original, ids: &ids)
        contest = Contest()
        outbox.append(.report(.released(sink: guarded.name, to: guarded.original)))
        dropGuarded()
    }

    /// The guarded sink went away (unplugged, module unloaded): nothing to restore now, but its original
    /// is kept for when it comes back. Look for another sink to hold.
    private mutating func lose(_ lost: Guarded) {
        outbox.append(.report(.sinkLost(sink: lost.name)))
        custodian.remember(lost)
        dropGuarded()
        follower.forget()
        inFlight.forget()
        setState(.noSink)
        ask(follower.seek)
    }

    /// Releases the sink and forgets the default sink, so that no reply still on its way adopts one.
    private mutating func stopHolding() {
        release()
        follower.forget()
        inFlight.forget()
    }

    // MARK: - Judging readings

    private mutating func received(_ reading: SinkState?, changes: Int) {
        guard var current = guarded else {
            if let reading, follower.picks(reading.name) {
                adopt(reading)
            } else if state == .connecting || state == .guarding || state == .noSink {
                awaitDefault()
            }
            return
        }
        guard let reading, reading.index == current.index else {
            lose(current)
            return
        }
        let level = SinkLevel(volume: reading.volume, muted: reading.muted)
        let verdict = current.echo.judge(level, by: configuration)
        if case .retry(let attempt) = verdict {
            guarded = current
            outbox.append(.report(.resetRetried(sink: current.name, attempt: attempt)))
            holdTarget(correcting: level, attempt: attempt)
            return
        }
        if !configuration.guardsMute {
            // Mute passes through: it is neither a press nor put back, and the sink keeps it in the end.
            current.original.muted = level.muted
            current.echo.passMute(level.muted)
        }
        guard case .change(let verifying) = verdict else {
            outbox.append(.report(.resetAbandoned(sink: current.name)))
            guarded = current
            return
        }
        if let press = counter.count(
            level, seen: current.echo.seen, target: current.target, changes: changes, on: current.name, at: now
        ) {
            publish(press)
        }
        if level != current.echo.seen, contest.noteChange(to: level, at: now, afterReset: verifying) {
            current.echo.hold(HeldLevel(holding: level.volume, margin: configuration.clampMargin))
            current.contested = true
            outbox.append(.report(.contested(sink: current.name, held: current.held.volume)))
        }
        current.echo.counted(level)
        guarded = current
        if !checkBurst() { holdTarget(correcting: level, attempt: 0) }
    }

    /// How close together changes come in a burst (see `PressCounter.burstGap`).
    public static let burstGap = PressCounter.burstGap

    /// While the counter holds back a burst: asks to be woken when it may have paused, or reads the sink
    /// once it has. False when it does not hold back.
    @discardableResult
    private mutating func checkBurst() -> Bool {
        switch counter.checkBurst(at: now) {
        case nil: return false
        case .wait(let delay): outbox.append(.wakeUp(after: delay))
        case .paused:
            inFlight.markDue()
            readIfDue()
        }
        return true
    }

    /// A timer the core asked for is due: a gesture may be complete, or the default sink worth asking
    /// for again.
    private mutating func wokeUp() {
        let (found, next) = gestures.wakeUp(at: now)
        tell(found, wakeUp: next)
        checkBurst()
        if guarded == nil, !inFlight.isReading, state == .noSink { ask(follower.askDefault) }
    }

    /// Issues the writes that put the guarded sink back at its held level, if it is not there.
    private mutating func holdTarget(correcting level: SinkLevel, attempt: Int) {
        guard var current = guarded else { return }
        let target = current.target
        var wrote = false
        if level.volume != target.volume {
            outbox.append(.setVolume(sink: current.index, current.held.volume, inFlight.write(&ids)))
            wrote = true
        }
        if level.muted != target.muted {
            outbox.append(.setMute(sink: current.index, target.muted, inFlight.write(&ids)))
            wrote = true
        }
        guard wrote else { return }
        current.echo.wrote(correcting: level, to: target, attempt: attempt)
        guarded = current
    }

    private mutating func publish(_ press: Press) {
        outbox.append(.publish(press))
        let (found, next) = gestures.press(press, at: now)
        tell(found, wakeUp: next)
    }

    private mutating func tell(_ found: [Gesture], wakeUp next: Duration?) {
        outbox += found.map(GuardAction.gesture)
        if let next { outbox.append(.wakeUp(after: next)) }
    }

    // MARK: - Reads, writes and bookkeeping

    /// Reads the guarded sink when it may have changed and nothing is in flight (see `InFlight`).
    private mutating func readIfDue() {
        guard let guarded, let ticket = inFlight.readIfDue(&ids) else { return }
        outbox.append(.readSink(.index(guarded.index), ticket))
    }

    /// No sink is held any more: nothing of its writes, reads or bursts is awaited.
    private mutating func dropGuarded() {
        guarded = nil
        inFlight.dropHeld()
        counter.dropHeld()
    }

    private mutating func forgetConnection() {
        dropGuarded()
        follower.forget()
        custodian.connectionLost()
        inFlight.forget()
    }

    private mutating func setState(_ new: GuardState) {
        guard new != state else { return }
        state = new
        outbox.append(.stateChanged(new))
    }
}
