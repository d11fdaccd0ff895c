/// The guard's decisions, as a pure value: fed `GuardEvent`s in the order they happened, each with the
/// time it happened, it returns the `GuardAction`s to perform. No IO, no clock of its own, no threads:
/// every rule can be tested by feeding events.
///
/// The rules live in small machines, each with one concern; the core keeps the lifecycle (`GuardState`)
/// and hands each event to the machines it concerns (docs/DESIGN.md, "The core", says which owns which
/// rule): `SinkFollower`, `Guarded` with its `EchoJudge` and `Contest`, `PressCounter`, `GestureDetector`,
/// `Custodian` and `InFlight`. What it does with a reading of the held sink is in GuardCore+Holding.swift; how it finds
/// the sink to hold, in GuardCore+Seeking.swift.
public struct GuardCore: Sendable {
    public internal(set) var state: GuardState = .connecting
    public internal(set) var guarded: Guarded?
    private(set) var configuration: Configuration
    var follower: SinkFollower
    var counter: PressCounter
    var custodian: Custodian
    var gestures: GestureDetector
    var inFlight = InFlight()
    var ids = RequestIDs()
    /// The time of the event being handled.
    var now: Duration = .zero
    /// The actions of the event being handled, in order.
    var outbox: [GuardAction] = []
    /// The sink to hold was found still being given back: it is looked for again once it is back.
    var awaitedRelease: String?

    /// A core that starts with `remembered`: the original levels a previous run recorded and did not
    /// give back (it was killed). A sink among them is given that level in the end, not the one the
    /// previous run left it at.
    public init(configuration: Configuration = Configuration(), remembered: [String: SinkLevel] = [:]) {
        self.configuration = configuration
        follower = SinkFollower(selection: configuration.selection)
        counter = PressCounter(keyStep: configuration.keyStep)
        custodian = Custodian(recorded: remembered)
        gestures = GestureDetector(configuration: configuration.gestures)
    }

    public var presses: PressCounts { counter.presses }
    /// The seq of the last press published; 0 before the first.
    public var lastSeq: UInt64 { counter.lastSeq }
    var keyStep: KeyStep { counter.keyStep }

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
            forget()
            follower.connected()
            guard state != .paused else {
                // Paused, the sinks have their levels back: so must those a previous run left held.
                if !custodian.remembered.isEmpty { ask(.readAll) }
                break
            }
            setState(.connecting)
            ask(follower.seek)
        case .disconnected:
            outbox += gestures.interrupt(at: now).map(GuardAction.gesture)
            if let guarded { custodian.remember(guarded) }
            forget()
            custodian.connectionLost()
            if state != .paused && state != .stopped { setState(.connecting) }
        case .serverChanged:
            if state != .stopped { ask(follower.askDefault) }
        case .defaultSink(let name):
            guard state != .stopped, follower.follow(name, holding: guarded?.name, reading: inFlight.isReading) else { break }
            release()
            guard state != .paused else { break }
            if let name { ask(.read(.name(name))) } else { awaitDefault() }
        case .sinkAdded(let index):
            if waitsForSink { ask(follower.sinkAdded(index)) }
        case .sinksRead(let ticket, let sinks):
            guard inFlight.answered(ticket) != nil else { break }
            guard state != .paused else {
                outbox += custodian.giveBackRemembered(sinks, ids: &ids)
                break
            }
            follower.listed(sinks)
            found(follower.chosen(among: sinks))
        case .sinkChanged(let index):
            guard index == guarded?.index else { break }
            inFlight.sinkChanged()
            guarded?.sinkChanged()
            readIfDue()
        case .sinkRemoved(let index):
            if let lost = guarded, index == lost.index { lose(lost) }
        case .sinkRead(let ticket, let reading):
            if let actions = custodian.checked(ticket, reading, retries: configuration.resetRetries, ids: &ids) {
                outbox += actions
                if let awaited = awaitedRelease, !custodian.isGivingBack(awaited) {
                    awaitedRelease = nil
                    ask(follower.seek)
                }
            } else if let changes = inFlight.answered(ticket) {
                if let held = guarded { received(reading, of: held, changes: changes) } else { found(reading) }
                readIfDue()
            }
        case .written(let tag):
            if let actions = custodian.acknowledged(tag, ids: &ids) {
                outbox += actions
            } else if inFlight.acknowledged(tag) {
                guarded?.acknowledged(at: now)
                readIfDue()
            }
        case .wakeUp:
            tell(gestures.wakeUp(at: now))
            checkBurst()
            if waitsForSink { ask(follower.askDefault) }
        case .pause:
            guard state != .paused, state != .stopped else { break }
            release()
            forget()
            setState(.paused)
        case .resume:
            guard state == .paused else { break }
            // Those given back while paused left custody then; the rest (absent, or not read yet) stay.
            // A read made while paused (giving back recorded levels) is not one to guard by.
            inFlight.forget()
            setState(.connecting)
            ask(follower.seek)
        case .reconfigure(let new):
            reconfigure(new)
        case .shutdown:
            guard state != .stopped else { break }
            release()
            forget()
            // A sink that is gone at the end cannot be given back: its record ends with this run.
            custodian.forgetRemembered()
            setState(.stopped)
        }
        if let record = custodian.announce(holding: guarded) { outbox.insert(record, at: 0) }
        defer { outbox = [] }
        return outbox
    }

    /// There is no sink to hold and none is being read: a sink that appears, or a recheck, is worth a look.
    private var waitsForSink: Bool {
        guarded == nil && !inFlight.isReading && state == .noSink
    }

    /// Takes a new configuration. A sink the new selection does not pick is given back and another is
    /// looked for; a sink it still picks goes on being held (with its original: giving it back and
    /// reading it again could meet pipewire-pulse's stale cache), at the level the new margin and mute
    /// rule give. New gesture thresholds apply from the next press; a hold in progress ends at once.
    private mutating func reconfigure(_ new: Configuration) {
        let old = configuration
        configuration = new
        follower.selection = new.selection
        counter.configure(keyStep: new.keyStep)
        if new.gestures != old.gestures {
            // A hold in progress ends, told as such; the next presses are judged by the new thresholds.
            outbox += gestures.interrupt(at: now).map(GuardAction.gesture)
            gestures = GestureDetector(configuration: new.gestures)
        }
        guard state == .guarding || state == .noSink else { return }
        if new.selection != old.selection, !(guarded.map { new.selection.admits($0.name) } ?? false) {
            release()
            follower.forget()
            ask(follower.seek)
            return
        }
        guard guarded != nil, new.clampMargin != old.clampMargin || new.guardsMute != old.guardsMute else { return }
        guarded?.rehold(margin: new.clampMargin)
        // The next reading is judged against the new target and corrected to it.
        inFlight.markDue()
        readIfDue()
    }

    mutating func setState(_ new: GuardState) {
        guard new != state else { return }
        state = new
        outbox.append(.stateChanged(new))
    }
}
