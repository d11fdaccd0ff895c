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
/// Faster presses change two things. In a run (a press in the last `KeyStep.isolation`) a reading counts
/// several steps only beyond every recent level, and one otherwise (`base(for:in:)`): never more steps
/// than a client made. In a burst (presses closer than `burstGap`, which only programs make) nothing is
/// written until it pauses for `burstQuiet`.
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

    /// The sink being held.
    public struct Guarded: Hashable, Sendable {
        public var index: UInt32
        public var name: String
        /// The level when guarding began: what is restored on exit, pause or a switch.
        public var original: SinkLevel
        public var held: HeldLevel
        /// How the server renders the held volume when read back; nil until seen.
        public var heldAsRead: SinkVolume?
        /// A first, inexact reading after writing the held level, waiting to be confirmed by the next.
        public var heldRendering: SinkVolume?
        /// The level the core has accounted for: the last reading, or what its own writes set since.
        public var seen: SinkLevel
        /// Another client fought the guard: `held` is that client's level, not the original's.
        public var contested = false
        /// The last few distinct levels (loudest channel) the sink was read at in this run of presses,
        /// the latest last: a client may still step from any of them (see `base(for:in:)`).
        public var runLevels: [UInt32] = []

        /// The held level as the server will report it.
        public var target: SinkLevel {
            SinkLevel(volume: heldAsRead ?? held.volume, muted: original.muted)
        }
    }

    /// The reading after the core's own writes, judged with what it knows of them.
    private struct Verification: Hashable, Sendable {
        /// The reading the writes corrected.
        var before: SinkLevel
        /// Whether the sink reported a change since the writes were sent.
        var changedSince = false
        var attempt = 0
    }

    /// A sink being given back: its restore writes, then a reading to check that they took.
    private struct Release: Hashable, Sendable {
        var sink: UInt32
        var name: String
        var original: SinkLevel
        var writes: Set<ResetTag> = []
        var check: ReadTicket?
        var attempt = 0
    }

    public private(set) var state: GuardState = .connecting
    public private(set) var guarded: Guarded?
    public private(set) var presses = PressCounts()
    /// The seq of the last press published; 0 before the first.
    public private(set) var lastSeq: UInt64 = 0
    public private(set) var keyStep: KeyStep
    private var contest = Contest()
    private var gestures: GestureDetector
    /// When the last batch of resets was acknowledged.
    private var resetAcknowledged: Duration?
    /// The time of the event being handled.
    private var now: Duration = .zero
    /// When the last press was published.
    private var lastPress: Duration?
    public private(set) var configuration: Configuration

    /// The default sink the core is resolving or holding.
    private var wanted: String?
    /// The original levels of sinks lost without being given back (the server went away, the device was
    /// unplugged), by name: when such a sink comes back, its level may be the held one the server kept,
    /// and what is restored in the end must still be the user's own.
    private var remembered: [String: SinkLevel] = [:]
    /// The names in `remembered` that came from a previous run's record, for the log.
    private var recorded: Set<String> = []
    /// The custody last announced with `recordOriginals`.
    private var announcedCustody: [String: SinkLevel]
    private var pendingWrites: Set<ResetTag> = []
    /// Changes are coming faster than keys repeat: resets wait until they pause (see `burstGap`).
    private var holdingBack = false
    private var releases: [Release] = []
    private var readInFlight: ReadTicket?
    /// Change events of the guarded sink since the last read was issued.
    private var changesSinceRead = 0
    /// The sink changed (or was written) since the last read was issued.
    private var dirty = false
    private var verification: Verification?
    /// How often the default sink has been asked for again since there was last one to hold.
    private var defaultRechecks = 0
    /// A sink appeared on this connection while no default sink could be found.
    private var sinksWithoutDefault = false
    private var nextTag: UInt64 = 0
    private var nextTicket: UInt64 = 0
    private var outbox: [GuardAction] = []

    /// A core that starts with `remembered`: the original levels a previous run recorded and did not
    /// give back (it was killed). A sink among them is given that level in the end, not the one the
    /// previous run left it at.
    public init(configuration: Configuration = Configuration(), remembered: [String: SinkLevel] = [:]) {
        self.configuration = configuration
        self.keyStep = KeyStep(configured: configuration.keyStep)
        self.gestures = GestureDetector(configuration: configuration.gestures)
        self.remembered = remembered
        recorded = Set(remembered.keys)
        announcedCustody = remembered
    }

    /// The original levels the core is answerable for, by sink name: the held sink's, those being given
    /// back, and those of sinks lost (or recorded by a previous run) that will be given back if seen.
    public var custody: [String: SinkLevel] {
        var custody = remembered
        for release in releases { custody[release.name] = release.original }
        if let guarded { custody[guarded.name] = guarded.original }
        return custody
    }

    /// Whether another client fought the guard over this sink, and the guard now holds that client's level.
    public var isContested: Bool { guarded?.contested ?? false }

    /// True once every sink given back has been read back at its original level (or given up on).
    public var isReleased: Bool { releases.isEmpty }

    /// Feeds one event that happened at `now` (on any monotonic clock); returns what to do about it, in order.
    public mutating func handle(_ event: GuardEvent, at now: Duration) -> [GuardAction] {
        self.now = now
        switch event {
        case .connected:
            // Stopped is final: a connection that comes back after shutdown must not adopt a sink again.
            guard state != .stopped else { break }
            forgetConnection()
            defaultRechecks = 0
            sinksWithoutDefault = false
            guard state != .paused else {
                // Paused, the sinks have their levels back: so must those a previous run left held.
                if !remembered.isEmpty { readAll() }
                break
            }
            setState(.connecting)
            seek()
        case .disconnected:
            gestures.interrupt(at: now).forEach { outbox.append(.gesture($0)) }
            if let guarded { remembered[guarded.name] = guarded.original }
            forgetConnection()
            if state != .paused && state != .stopped { setState(.connecting) }
        case .serverChanged:
            if state != .stopped, configuration.selection == .defaultSink { outbox.append(.readDefaultSink) }
        case .defaultSink(let name):
            guard configuration.selection == .defaultSink else { break }
            follow(name)
        case .sinkAdded(let index):
            // The sink waited for may just have appeared: a chosen one, or the default. The default is
            // asked for again rather than compared with the name last heard: servers name a default before
            // its device exists (WirePlumber restores it by name, with no server change to follow), and
            // pipewire-pulse offers a passing dummy sink after a restart.
            guard guarded == nil, readInFlight == nil, state == .noSink else { break }
            switch configuration.selection {
            case .defaultSink:
                sinksWithoutDefault = true
                outbox.append(.readDefaultSink)
            case .matching: read(.index(index))
            }
        case .sinksRead(let ticket, let sinks):
            guard ticket == readInFlight else { break }
            readInFlight = nil
            guard state != .paused else {
                giveBackRemembered(sinks)
                break
            }
            received(sinks.first { configuration.selection.admits($0.name) })
        case .sinkChanged(let index):
            guard index == guarded?.index else { break }
            dirty = true
            changesSinceRead += 1
            verification?.changedSince = true
            readIfDue()
        case .sinkRemoved(let index):
            guard let lost = guarded, index == lost.index else { break }
            lose(lost)
        case .sinkRead(let ticket, let reading):
            if let position = releases.firstIndex(where: { $0.check == ticket }) {
                checkRelease(at: position, reading)
                break
            }
            guard ticket == readInFlight else { break }
            readInFlight = nil
            received(reading)
            readIfDue()
        case .written(let tag, _):
            if let position = releases.firstIndex(where: { $0.writes.contains(tag) }) {
                releases[position].writes.remove(tag)
                if releases[position].writes.isEmpty {
                    nextTicket += 1
                    releases[position].check = ReadTicket(seq: nextTicket)
                    outbox.append(.readSink(.index(releases[position].sink), ReadTicket(seq: nextTicket)))
                }
                break
            }
            guard pendingWrites.remove(tag) != nil, pendingWrites.isEmpty else { break }
            resetAcknowledged = now
            dirty = true
            readIfDue()
        case .wakeUp:
            wokeUp()
        case .pause:
            guard state != .paused, state != .stopped else { break }
            stopHolding()
            setState(.paused)
        case .resume:
            guard state == .paused else { break }
            remembered = [:]
            recorded = []
            // A read made while paused (giving back recorded levels) is not one to guard by.
            readInFlight = nil
            setState(.connecting)
            seek()
        case .reconfigure(let new):
            reconfigure(new)
        case .shutdown:
            guard state != .stopped else { break }
            stopHolding()
            // A sink that is gone at the end cannot be given back: its record ends with this run.
            remembered = [:]
            setState(.stopped)
        }
        if custody != announcedCustody {
            announcedCustody = custody
            outbox.insert(.recordOriginals(custody), at: 0)
        }
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
        if new.keyStep != old.keyStep { keyStep = KeyStep(configured: new.keyStep) }
        guard state == .guarding || state == .noSink else { return }
        if new.selection != old.selection, !(guarded.map { new.selection.admits($0.name) } ?? false) {
            release()
            wanted = nil
            seek()
            return
        }
        guard var current = guarded, new.clampMargin != old.clampMargin || new.guardsMute != old.guardsMute else { return }
        current.held = HeldLevel(holding: current.original.volume, margin: new.clampMargin)
        current.heldAsRead = nil
        current.heldRendering = nil
        current.contested = false
        guarded = current
        // The next reading is judged against the new target and corrected to it.
        dirty = true
        readIfDue()
    }

    /// While paused, gives each remembered sink that is present its original level back.
    private mutating func giveBackRemembered(_ sinks: [SinkState]) {
        for sink in sinks {
            guard let original = remembered[sink.name], original.volume.channels.count == sink.volume.channels.count else { continue }
            remembered[sink.name] = nil
            if recorded.remove(sink.name) != nil { outbox.append(.report(.recovered(sink: sink.name, to: original))) }
            var release = Release(sink: sink.index, name: sink.name, original: original)
            restore(&release)
            releases.append(release)
        }
    }

    // MARK: - Following the default sink

    private mutating func follow(_ name: String?) {
        guard state != .stopped else { return }
        if let guarded, guarded.name == name { return }
        if guarded == nil, readInFlight != nil, wanted == name { return }
        release()
        wanted = name
        guard state != .paused else { return }
        guard let name else {
            awaitDefault()
            return
        }
        read(.name(name))
    }

    /// There is no default sink to hold (yet). Servers announce a new default with a server change, but
    /// pipewire-pulse does not when its session manager settles on one after a restart: ask again a few
    /// times, backing off, and then wait for events alone.
    ///
    /// pipewire-pulse 0.3.65 also never tells a client that connected before its session manager was up
    /// which sink is the default, while newer clients are told: when sinks appear and no default does,
    /// a fresh connection is asked for (once per connection).
    private mutating func awaitDefault() {
        setState(.noSink)
        guard configuration.selection == .defaultSink, defaultRechecks < Self.defaultRecheckLimit else { return }
        if sinksWithoutDefault, defaultRechecks >= 3 {
            sinksWithoutDefault = false
            outbox.append(.reconnect)
            return
        }
        outbox.append(.wakeUp(after: .milliseconds(50 << defaultRechecks)))
        defaultRechecks += 1
    }

    /// How often, at most, the default sink is asked for again before the guard waits for events alone.
    public static let defaultRecheckLimit = 8

    /// Looks for the sink to hold.
    private mutating func seek() {
        switch configuration.selection {
        case .defaultSink: outbox.append(.readDefaultSink)
        case .matching: readAll()
        }
    }

    private mutating func adopt(_ reading: SinkState) {
        var original = SinkLevel(volume: reading.volume, muted: reading.muted)
        if let kept = remembered.removeValue(forKey: reading.name),
           kept.volume.channels.count == reading.volume.channels.count {
            original = kept
            if recorded.remove(reading.name) != nil { outbox.append(.report(.recovered(sink: reading.name, to: kept))) }
        }
        defaultRechecks = 0
        contest = Contest()
        let held = HeldLevel(holding: original.volume, margin: configuration.clampMargin)
        guarded = Guarded(
            index: reading.index, name: reading.name, original: original, held: held,
            heldAsRead: nil, seen: SinkLevel(volume: reading.volume, muted: reading.muted)
        )
        setState(.guarding)
        outbox.append(.report(.guarding(sink: reading.name, original: original, held: held.volume)))
        holdTarget(correcting: SinkLevel(volume: reading.volume, muted: reading.muted), attempt: 0)
    }

    /// Gives the guarded sink its original level back and stops holding it.
    private mutating func release() {
        guard let guarded else { return }
        var release = Release(sink: guarded.index, name: guarded.name, original: guarded.original)
        restore(&release)
        releases.append(release)
        contest = Contest()
        outbox.append(.report(.released(sink: guarded.name, to: guarded.original)))
        remembered[guarded.name] = nil
        dropGuarded()
    }

    /// The guarded sink went away (unplugged, module unloaded): nothing to restore now, but its original
    /// is kept for when it comes back. Look for another sink to hold.
    private mutating func lose(_ lost: Guarded) {
        outbox.append(.report(.sinkLost(sink: lost.name)))
        remembered[lost.name] = lost.original
        dropGuarded()
        wanted = nil
        readInFlight = nil
        setState(.noSink)
        seek()
    }

    /// Issues the writes that put a released sink back at its original level.
    private mutating func restore(_ release: inout Release) {
        let volumeTag = issueTag()
        let muteTag = issueTag()
        release.writes = [volumeTag, muteTag]
        release.check = nil
        outbox.append(.setVolume(sink: release.sink, release.original.volume, volumeTag))
        outbox.append(.setMute(sink: release.sink, release.original.muted, muteTag))
    }

    /// Judges the reading after a release's writes: done when the sink is back at its original level
    /// (or gone); otherwise a write did not take (pipewire-pulse's stale cache) and is issued again.
    private mutating func checkRelease(at position: Int, _ reading: SinkState?) {
        var release = releases[position]
        guard let reading, SinkLevel(volume: reading.volume, muted: reading.muted) != release.original else {
            releases.remove(at: position)
            return
        }
        guard release.attempt < configuration.resetRetries else {
            outbox.append(.report(.resetAbandoned(sink: release.name)))
            releases.remove(at: position)
            return
        }
        release.attempt += 1
        outbox.append(.report(.resetRetried(sink: release.name, attempt: release.attempt)))
        restore(&release)
        releases[position] = release
    }

    /// Releases the sink and forgets the default sink, so that no reply still on its way adopts one.
    private mutating func stopHolding() {
        release()
        wanted = nil
        readInFlight = nil
    }

    // MARK: - Judging readings

    private mutating func received(_ reading: SinkState?) {
        guard var current = guarded else {
            if let reading, reading.name == wanted || configuration.selection.admits(reading.name) {
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
        if !configuration.guardsMute {
            // Mute passes through: it is neither a press nor put back, and the sink keeps it in the end.
            current.original.muted = level.muted
            current.seen.muted = level.muted
        }
        let check = verification
        verification = nil

        if let check {
            // The held level written again read back as the same inexact value: that is how the server
            // renders it.
            if current.heldAsRead == nil, current.heldRendering == level.volume {
                current.heldAsRead = level.volume
                current.seen.volume = level.volume
            }
            // pipewire-pulse skips a set equal to its (stale) cached value: nothing changed at all since
            // the write, and the sink still reads as it did before it. Issue it again; it is no press.
            if !check.changedSince, level == check.before, level != current.seen {
                guard check.attempt < configuration.resetRetries else {
                    outbox.append(.report(.resetAbandoned(sink: current.name)))
                    current.seen = level
                    guarded = current
                    return
                }
                outbox.append(.report(.resetRetried(sink: current.name, attempt: check.attempt + 1)))
                holdTarget(correcting: level, attempt: check.attempt + 1)
                return
            }
            // The server's rendering of the written volume may differ by a few raw units. It is learned
            // from the readings after writing the held level, and compared exactly after that, so a
            // press landing near the held level later is never taken for an echo. A reading whose volume
            // has not moved from the one corrected is no rendering of the write (it was skipped). An
            // inexact one may also be a press landing near the held level while the write was skipped:
            // it is taken for an echo, and the held level is written once more; the reading after that
            // is the rendering.
            if current.heldAsRead == nil, level.volume != check.before.volume,
               HeldLevel.admits(level.volume, margin: configuration.clampMargin),
               level.volume.isClose(to: current.held.volume, tolerance: configuration.echoTolerance) {
                if level.volume == current.held.volume || current.heldRendering != nil {
                    current.heldAsRead = level.volume
                } else {
                    current.heldRendering = level.volume
                }
                current.seen.volume = level.volume
            }
        }

        let isolated = current.seen == current.target && !inRun
        if !inRun { current.runLevels = [] }
        // A program is stepping when a press follows the last within `burstGap`; when one lands on top
        // of the guard's reset of a press before it could read the reset back (the guard's round trip
        // is slower than the program's steps); or when the server reports several changes while one
        // read is in flight: a burst's first reading shows no press before it, and a key press is one
        // change.
        var burst = inBurst || (check != nil && pressCame(within: Self.burstQuiet))
            || changesSinceRead >= Self.burstChanges
        let loudest = level.volume.max
        let counted = base(for: loudest, in: current)
        let delta = counted.map { Int64(loudest) - Int64($0.level) } ?? 0
        if let counted, delta != 0 {
            let size = UInt32(delta.magnitude)
            keyStep.notePress(of: size, at: now, isolated: isolated)
            let count = counted.oneStep ? 1 : keyStep.count(for: size)
            // Several steps in one reading, and still changing while it was taken: no hand presses
            // keys that fast (a read takes well under a millisecond).
            if count > 1, changesSinceRead > 0 { burst = true }
            publish(delta > 0 ? .up : .down, count: count, on: current.name)
        } else if level.muted != current.seen.muted {
            // A desktop that mutes at 0 % or unmutes on up does so with the volume press: one press.
            publish(.mute, count: 1, on: current.name)
        }
        if level != current.seen,
           contest.noteChange(to: level, at: now, resetAcknowledged: check == nil ? nil : resetAcknowledged) {
            current.held = HeldLevel(holding: level.volume, margin: configuration.clampMargin)
            current.heldAsRead = nil
            current.heldRendering = nil
            current.contested = true
            outbox.append(.report(.contested(sink: current.name, held: current.held.volume)))
        }
        if burst, level != current.seen { holdingBack = true }
        if inRun, loudest != current.target.volume.max {
            current.runLevels.removeAll { $0 == loudest }
            current.runLevels.append(loudest)
            if current.runLevels.count > Self.runLevelsKept { current.runLevels.removeFirst() }
        }
        current.seen = level
        guarded = current
        guard !holdingBack else {
            checkBurst()
            return
        }
        holdTarget(correcting: level, attempt: 0)
    }

    /// How close together changes come in a burst: closer than any key repeats (25 Hz and faster are
    /// 40 ms and less apart) or a scroll wheel steps (125 Hz: 8 ms), so only a program stepping the
    /// volume makes them.
    ///
    /// Such a client steps from the level it has just read. A reset landing between its read and its
    /// write is built upon (counted from `base(for:in:)`), but one landing between its write and the
    /// guard's read of it overwrites a step unseen, and the next step starts from the held level. So
    /// within a burst the guard only reads, counting each reading from the one before, and puts the
    /// level back once the changes pause for `burstQuiet`.
    ///
    /// Steps further apart than this are each read and put back long before the next (the guard's
    /// round trip is 1–3 ms), so no reset can fall between a step and the guard's reading of it.
    public static let burstGap: Duration = .milliseconds(5)

    /// How long a burst must pause before the guard puts the level back: four times `burstGap`, so
    /// that a program stepping at a steady pace, however its timer jitters, is either never in a burst
    /// or stays in one until it stops. Were the two equal, a program stepping at about that pace would
    /// enter and leave bursts at random, and each reset at a burst's end would fall right where its
    /// next step lands, overwriting it (a scroll wheel at 125 Hz lost 8 of 200 steps so while bursts
    /// began and ended at 10 ms).
    public static let burstQuiet: Duration = .milliseconds(20)

    /// How many distinct levels of a run a client may still step from (see `base(for:in:)`): a client
    /// that does not wait for its sets' acknowledgements can read pipewire-pulse's cache several of its
    /// own sets behind (the cache lags 1-3 ms), and the guard reads a new level at most every 0.2 ms or
    /// so. Older levels are forgotten so that a burst that climbs again after a pause is counted from
    /// its own readings, not from those of the climb before.
    static let runLevelsKept = 8

    /// How many change events arriving while one read is in flight mark a burst from its first reading
    /// on: a reset written then would land among the program's steps and wipe out those before it.
    static let burstChanges = 3

    /// While holding back: ends it once the burst has paused, or asks to be woken when it may have.
    private mutating func checkBurst() {
        guard holdingBack else { return }
        guard pressCame(within: Self.burstQuiet), let lastPress else {
            holdingBack = false
            dirty = true
            readIfDue()
            return
        }
        outbox.append(.wakeUp(after: lastPress + Self.burstQuiet - now))
    }

    /// How a reading (its loudest channel) counts: from which level, or as one step whatever its size;
    /// nil when it is no press.
    ///
    /// Outside a run of presses, from the level the core has accounted for. In a run (auto-repeat, a
    /// script), a client steps from whatever level it last read, and that may be one the guard has since
    /// put back, or one a burst has since moved on from; on pipewire-pulse, whose reads answer from a
    /// cache, even one from before the client's own last few sets. The reading is then one step from a
    /// level the sink was at, possibly several from the level accounted for, and nothing tells which
    /// level it was. So in a run:
    ///
    /// - a reading beyond every recent level on its side of the held level (the last `runLevelsKept`
    ///   the run has read, and the one accounted for) is counted from the farthest of them: the levels
    ///   in between were never read, so the steps that made them were never counted;
    /// - any other reading is one step: something changed, so at least one step landed since the last
    ///   reading, and the levels it passes were counted when they were read;
    /// - a reading that moved the sink back toward the held level, which only happens in a burst
    ///   (nothing was put back), is no press: a program stepping back, and one stepping on from a level
    ///   it read before its last steps landed, cannot be told apart, and counted it would be a step in
    ///   the other direction that this client never made.
    ///
    /// Fewer steps always win: presses merged within one reading that do not reach beyond the recent
    /// levels count one. docs/DESIGN.md, "Counting: the rule and its proof sketch".
    private func base(for reading: UInt32, in current: Guarded) -> (level: UInt32, oneStep: Bool)? {
        let seen = current.seen.volume.max
        guard inRun, reading != seen else { return (seen, false) }
        let held = current.target.volume.max
        let up = reading > held
        func beyond(_ level: UInt32, _ than: UInt32) -> Bool { up ? level > than : level < than }
        // Back toward the held level, from the level accounted for on the same side.
        if reading == held || (seen != held && (seen > held) == up && beyond(seen, reading)) { return nil }
        var farthest = held
        for level in current.runLevels + [seen] where level != held && (level > held) == up && beyond(level, farthest) {
            farthest = level
        }
        return beyond(reading, farthest) ? (farthest, false) : (held, true)
    }

    /// A timer the core asked for is due: a gesture may be complete, or the default sink worth asking
    /// for again.
    private mutating func wokeUp() {
        let (found, next) = gestures.wakeUp(at: now)
        tell(found, wakeUp: next)
        checkBurst()
        if guarded == nil, readInFlight == nil, state == .noSink, configuration.selection == .defaultSink {
            outbox.append(.readDefaultSink)
        }
    }

    /// Issues the writes that put the guarded sink back at its held level, if it is not there.
    private mutating func holdTarget(correcting level: SinkLevel, attempt: Int) {
        guard var current = guarded else { return }
        let target = current.target
        var wrote = false
        if level.volume != target.volume {
            let tag = issueTag()
            pendingWrites.insert(tag)
            outbox.append(.setVolume(sink: current.index, current.held.volume, tag))
            wrote = true
        }
        if level.muted != target.muted {
            let tag = issueTag()
            pendingWrites.insert(tag)
            outbox.append(.setMute(sink: current.index, target.muted, tag))
            wrote = true
        }
        guard wrote else { return }
        current.seen = target
        guarded = current
        verification = Verification(before: level, attempt: attempt)
    }

    private mutating func publish(_ direction: Direction, count: Int, on sink: String) {
        lastPress = now
        lastSeq += 1
        presses[direction] += count
        let press = Press(seq: lastSeq, direction: direction, count: count, sink: sink)
        outbox.append(.publish(press))
        let (found, next) = gestures.press(press, at: now)
        tell(found, wakeUp: next)
    }

    private mutating func tell(_ found: [Gesture], wakeUp next: Duration?) {
        outbox += found.map(GuardAction.gesture)
        if let next { outbox.append(.wakeUp(after: next)) }
    }

    // MARK: - Reads, writes and bookkeeping

    /// Reads the guarded sink when it may have changed, but never while a write or a read is in
    /// flight: a reading taken then could not be told from the write's echo.
    private mutating func readIfDue() {
        guard dirty, pendingWrites.isEmpty, readInFlight == nil, let guarded else { return }
        dirty = false
        read(.index(guarded.index))
    }

    /// Whether a press came within the last `KeyStep.isolation`: keys are repeating or a script is
    /// stepping, and the next press may come at any moment.
    private var inRun: Bool { pressCame(within: KeyStep.isolation) }

    /// Whether the last press came less than `burstGap` ago.
    private var inBurst: Bool { pressCame(within: Self.burstGap) }

    private func pressCame(within span: Duration) -> Bool {
        lastPress.map { now - $0 < span } ?? false
    }

    private mutating func read(_ query: SinkQuery) {
        changesSinceRead = 0
        outbox.append(.readSink(query, issueTicket()))
    }

    private mutating func readAll() {
        outbox.append(.readSinks(issueTicket()))
    }

    /// A ticket for the one read in flight; a reply carrying an older one is stale.
    private mutating func issueTicket() -> ReadTicket {
        nextTicket += 1
        let ticket = ReadTicket(seq: nextTicket)
        readInFlight = ticket
        return ticket
    }

    /// No sink is held any more: nothing of its writes, reads or bursts is awaited.
    private mutating func dropGuarded() {
        guarded = nil
        pendingWrites = []
        holdingBack = false
        verification = nil
        dirty = false
    }

    private mutating func issueTag() -> ResetTag {
        nextTag += 1
        return ResetTag(seq: nextTag)
    }

    private mutating func forgetConnection() {
        dropGuarded()
        wanted = nil
        releases = []
        readInFlight = nil
    }

    private mutating func setState(_ new: GuardState) {
        guard new != state else { return }
        state = new
        outbox.append(.stateChanged(new))
    }
}
