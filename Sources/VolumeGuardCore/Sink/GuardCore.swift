import GuardProtocol

/// The guard's decisions, as a pure value: fed `GuardEvent`s in the order they happened, each with the
/// time it happened, it returns the `GuardAction`s to perform. No IO, no clock of its own, no threads:
/// every rule can be tested by feeding events.
///
/// The rules live in small machines, each with one concern; the core keeps its `Phase`, whose guarding
/// case carries the sink held, and hands each event to the machines it concerns (docs/DESIGN.md, "The
/// core", says which owns which rule): `SinkFollower`, `Guarded` with its `EchoJudge` and `Contest`,
/// `PressCounter`, `Custodian` and `InFlight`. The presses it counts go on to the `PressPipeline`, as
/// every source's do. What it does with a reading of the held
/// sink is in GuardCore+Holding.swift; how it finds the sink to hold, in GuardCore+Seeking.swift.
public struct GuardCore: Sendable {
    /// What the core is doing. Only the guarding phase holds a sink, so no other can act on one.
    public enum Phase: Hashable, Sendable {
        /// Not connected to an audio server, or connected and looking for the first sink to hold.
        case connecting
        /// Holding a sink: its key changes are presses.
        case guarding(Guarded)
        /// A sink was given back (the default or the selection changed) and the next is looked for.
        case switching
        /// The sink to hold was found still being given back: its restore may yet be retried, so it is
        /// looked for again once it is back. Held now, it would take the restore for a press, and its
        /// held level for its original.
        case awaitingGiveBack(sink: String)
        /// Connected, but there is no sink to hold: waiting for one to appear, or for a default.
        case noSink
        /// Letting the keys act normally.
        case paused
        /// Shutting down: the sinks are given back (`allGivenBack` says when they are), and none is held again.
        case stopped
    }

    public internal(set) var phase = Phase.connecting
    private(set) var configuration: Configuration
    var follower: SinkFollower
    var counter: PressCounter
    var custodian: Custodian
    var inFlight = InFlight()
    var ids = RequestIDs()

    /// A core that starts with `remembered`: the original levels a previous run recorded and did not
    /// give back (it was killed). A sink among them is given that level in the end, not the one the
    /// previous run left it at.
    public init(configuration: Configuration = Configuration(), remembered: [String: SinkLevel] = [:]) {
        self.configuration = configuration
        follower = SinkFollower(selection: configuration.selection)
        counter = PressCounter(keyStep: configuration.keyStep)
        custodian = Custodian(recorded: remembered)
    }

    /// The sink held, while guarding.
    public var guarded: Guarded? {
        if case .guarding(let held) = phase { held } else { nil }
    }

    /// What the guard is doing, as status replies and subscribers are told: switching sinks is still
    /// guarding, with no sink named until the next one is held.
    public var state: GuardState {
        switch phase {
        case .connecting: .connecting
        case .guarding, .switching, .awaitingGiveBack: .guarding
        case .noSink: .noSink
        case .paused: .paused
        case .stopped: .stopped
        }
    }

    /// Between one sink and the next: the old one given back, the new one not held yet.
    public var isBetweenSinks: Bool {
        switch phase {
        case .switching, .awaitingGiveBack: true
        case .connecting, .guarding, .noSink, .paused, .stopped: false
        }
    }

    /// The original levels the core is answerable for, by sink name: the held sink's, those being given
    /// back, and those of sinks lost (or recorded by a previous run) that will be given back if seen.
    public var custody: [String: SinkLevel] { custodian.custody(holding: guarded) }

    /// Whether another client fought the guard over this sink, and the guard now holds that client's level.
    public var isContested: Bool { guarded?.contested ?? false }

    /// True once every sink given back has been read back at its original level (or given up on).
    public var allGivenBack: Bool { custodian.allGivenBack }

    /// Feeds one event that happened at `now` (on any monotonic clock); returns what to do about it, in order.
    public mutating func handle(_ event: GuardEvent, at now: Duration) -> [GuardAction] {
        var actions = react(to: event, at: now)
        if let record = custodian.announce(holding: guarded) { actions.insert(record, at: 0) }
        return actions
    }

    private mutating func react(to event: GuardEvent, at now: Duration) -> [GuardAction] {
        switch event {
        case .connected:
            // Stopped is final: a connection that comes back after shutdown must not adopt a sink again.
            guard phase != .stopped else { return [] }
            let released = forget()
            follower.connected()
            guard phase != .paused else {
                // Paused, the sinks have their levels back: so must those a previous run left held.
                return released + (custodian.remembered.isEmpty ? [] : ask(.readAll))
            }
            return released + enter(.connecting) + ask(follower.seek)
        case .disconnected:
            if let guarded { custodian.remember(guarded) }
            var actions = forget() + [.pressesInterrupted]
            custodian.connectionLost()
            if phase != .paused && phase != .stopped { actions += enter(.connecting) }
            return actions
        case .serverChanged:
            return phase == .stopped ? [] : ask(follower.askDefault)
        case .defaultSink(let name):
            guard phase != .stopped, follower.follow(name, holding: guarded?.name, reading: inFlight.isReading) else { return [] }
            let givenBack = giveBack()
            guard phase != .paused else { return givenBack }
            return givenBack + (name.map { ask(.read(.name($0))) } ?? awaitDefault())
        case .sinkAdded(let index):
            return waitsForSink ? ask(follower.sinkAdded(index)) : []
        case .sinksRead(let ticket, let sinks):
            guard inFlight.answered(ticket) != nil else { return [] }
            guard phase != .paused else { return custodian.giveBackRemembered(sinks, ids: &ids) }
            follower.listed(sinks)
            return found(follower.chosen(among: sinks))
        case .sinkChanged(let index):
            guard index == guarded?.index else { return [] }
            inFlight.sinkChanged()
            modifyGuarded { $0.sinkChanged() }
            return readIfDue()
        case .sinkRemoved(let index):
            guard let lost = guarded, index == lost.index else { return [] }
            return lose(lost)
        case .sinkRead(let ticket, let reading):
            if var actions = custodian.checked(ticket, reading, retries: configuration.resetRetries, ids: &ids) {
                if case .awaitingGiveBack(let awaited) = phase, !custodian.isGivingBack(awaited) {
                    actions += enter(.switching) + ask(follower.seek)
                }
                return actions
            }
            guard let changes = inFlight.answered(ticket) else { return [] }
            let actions = if let held = guarded { received(reading, of: held, changes: changes, at: now) } else { found(reading) }
            return actions + readIfDue()
        case .written(let tag):
            if let actions = custodian.acknowledged(tag, ids: &ids) { return actions }
            guard inFlight.acknowledged(tag) else { return [] }
            modifyGuarded { $0.acknowledged(at: now) }
            return readIfDue()
        case .wakeUp:
            return checkHeldMute(at: now) + checkBurst(at: now).actions + (waitsForSink ? ask(follower.askDefault) : [])
        case .pause:
            guard phase != .paused, phase != .stopped else { return [] }
            let givenBack = giveBack() + forget()
            return givenBack + enter(.paused)
        case .resume:
            guard phase == .paused else { return [] }
            // Those given back while paused left custody then; the rest (absent, or not read yet) stay.
            // A read made while paused (giving back recorded levels) is not one to guard by.
            inFlight.forget()
            return enter(.connecting) + ask(follower.seek)
        case .reconfigure(let new):
            return reconfigure(new)
        case .shutdown:
            guard phase != .stopped else { return [] }
            let givenBack = giveBack() + forget()
            // A sink that is gone at the end cannot be given back: its record ends with this run.
            custodian.forgetRemembered()
            return givenBack + enter(.stopped)
        }
    }

    /// There is no sink to hold and none is being read: a sink that appears, or a recheck, is worth a look.
    private var waitsForSink: Bool {
        phase == .noSink && !inFlight.isReading
    }

    /// Takes a new configuration. A sink the new selection does not pick is given back and another is
    /// looked for; a sink it still picks goes on being held (with its original: giving it back and
    /// reading it again could meet pipewire-pulse's stale cache), at the level the new margin and mute
    /// rule give.
    private mutating func reconfigure(_ new: Configuration) -> [GuardAction] {
        let old = configuration
        configuration = new
        follower.selection = new.selection
        counter.configure(keyStep: new.keyStep)
        var actions: [GuardAction] = []
        switch phase {
        case .guarding, .switching, .awaitingGiveBack, .noSink: break
        case .connecting, .paused, .stopped: return actions
        }
        if new.selection != old.selection, !(guarded.map { new.selection.admits($0.name) } ?? false) {
            actions += giveBack()
            follower.forget()
            return actions + ask(follower.seek)
        }
        guard guarded != nil, new.clampMargin != old.clampMargin || new.guardsMute != old.guardsMute else { return actions }
        modifyGuarded { $0.rehold(margin: new.clampMargin) }
        // The next reading is judged against the new target and corrected to it.
        inFlight.markDue()
        return actions + readIfDue()
    }

    /// Moves to `next`; says so when the state reported changes.
    mutating func enter(_ next: Phase) -> [GuardAction] {
        let reported = state
        phase = next
        return state == reported ? [] : [.stateChanged(state)]
    }

    /// Changes the sink held, if one is, in place.
    mutating func modifyGuarded<Result>(_ change: (inout Guarded) -> Result) -> Result? {
        guard case .guarding(var held) = phase else { return nil }
        let result = change(&held)
        phase = .guarding(held)
        return result
    }
}
