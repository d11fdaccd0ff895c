/// The guard's decisions, as a pure value: fed `GuardEvent`s in the order they happened, it returns the
/// `GuardAction`s to perform. No IO, no clock, no threads: every rule can be tested by feeding events.
///
/// How it tells a person's change from its own echo: the server's change events carry no values and no
/// author, so the core reads the sink after each event and compares the reading with `seen`, the level
/// it has accounted for. It never reads while one of its writes is unacknowledged, and it reads once
/// more after every acknowledgement (the *verification*). A write it has issued moves `seen` to the
/// level that write sets, so the echo compares equal and only a change made on top of it is a press,
/// counted from the written level, not from where the sink was before.
public struct GuardCore: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// The key step in raw units, or nil to learn it from presses.
        public var keyStep: UInt32?
        /// How far a server's reading of the held level may stray from what was written (pipewire-pulse
        /// stores volumes as floats) and still be taken as its echo.
        public var echoTolerance: UInt32
        /// How often a reset that did not take is issued again before the guard gives up on it.
        public var resetRetries: Int

        public init(keyStep: UInt32? = nil, echoTolerance: UInt32 = 8, resetRetries: Int = 3) {
            self.keyStep = keyStep
            self.echoTolerance = echoTolerance
            self.resetRetries = resetRetries
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
        /// The level the core has accounted for: the last reading, or what its own writes set since.
        public var seen: SinkLevel

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

    public private(set) var state: GuardState = .connecting
    public private(set) var guarded: Guarded?
    public private(set) var presses = PressCounts()
    /// The seq of the last press published; 0 before the first.
    public private(set) var lastSeq: UInt64 = 0
    public private(set) var keyStep: KeyStep
    public let configuration: Configuration

    /// The default sink the core is resolving or holding.
    private var wanted: String?
    /// The original level of a sink lost with the server connection, kept for when it comes back.
    private var remembered: (name: String, original: SinkLevel)?
    private var pendingWrites: Set<ResetTag> = []
    private var releaseWrites: Set<ResetTag> = []
    private var readInFlight: ReadTicket?
    /// The sink changed (or was written) since the last read was issued.
    private var dirty = false
    private var verification: Verification?
    private var nextTag: UInt64 = 0
    private var nextTicket: UInt64 = 0
    private var outbox: [GuardAction] = []

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.keyStep = KeyStep(configured: configuration.keyStep)
    }

    /// True once every write that gives a sink back has been acknowledged.
    public var isReleased: Bool { releaseWrites.isEmpty }

    /// Feeds one event; returns what to do about it, in order.
    public mutating func handle(_ event: GuardEvent) -> [GuardAction] {
        switch event {
        case .connected:
            // Stopped is final: a connection that comes back after shutdown must not adopt a sink again.
            guard state != .stopped else { break }
            forgetConnection()
            if state != .paused { setState(.connecting) }
            outbox.append(.readDefaultSink)
        case .disconnected:
            if let guarded { remembered = (guarded.name, guarded.original) }
            forgetConnection()
            if state != .paused && state != .stopped { setState(.connecting) }
        case .serverChanged:
            if state != .stopped { outbox.append(.readDefaultSink) }
        case .defaultSink(let name):
            follow(name)
        case .sinkChanged(let index):
            guard index == guarded?.index else { break }
            dirty = true
            verification?.changedSince = true
            readIfDue()
        case .sinkRemoved(let index):
            guard let lost = guarded, index == lost.index else { break }
            lose(lost)
        case .sinkRead(let ticket, let reading):
            guard ticket == readInFlight else { break }
            readInFlight = nil
            received(reading)
            readIfDue()
        case .written(let tag, _):
            releaseWrites.remove(tag)
            guard pendingWrites.remove(tag) != nil, pendingWrites.isEmpty else { break }
            dirty = true
            readIfDue()
        case .pause:
            guard state != .paused, state != .stopped else { break }
            stopHolding()
            setState(.paused)
        case .resume:
            guard state == .paused else { break }
            remembered = nil
            setState(.connecting)
            outbox.append(.readDefaultSink)
        case .shutdown:
            guard state != .stopped else { break }
            stopHolding()
            setState(.stopped)
        }
        defer { outbox = [] }
        return outbox
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
            setState(.noSink)
            return
        }
        read(.name(name))
    }

    private mutating func adopt(_ reading: SinkState) {
        var original = SinkLevel(volume: reading.volume, muted: reading.muted)
        if let remembered, remembered.name == reading.name,
           remembered.original.volume.channels.count == reading.volume.channels.count {
            original = remembered.original
        }
        remembered = nil
        let held = HeldLevel(holding: original.volume)
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
        let volumeTag = issueTag()
        let muteTag = issueTag()
        releaseWrites.formUnion([volumeTag, muteTag])
        outbox.append(.setVolume(sink: guarded.index, guarded.original.volume, volumeTag))
        outbox.append(.setMute(sink: guarded.index, guarded.original.muted, muteTag))
        outbox.append(.report(.released(sink: guarded.name, to: guarded.original)))
        self.guarded = nil
        pendingWrites = []
        verification = nil
        dirty = false
    }

    /// The guarded sink went away (unplugged, module unloaded): nothing to restore; ask which sink is
    /// the default now.
    private mutating func lose(_ lost: Guarded) {
        outbox.append(.report(.sinkLost(sink: lost.name)))
        guarded = nil
        wanted = nil
        pendingWrites = []
        readInFlight = nil
        verification = nil
        dirty = false
        setState(.noSink)
        outbox.append(.readDefaultSink)
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
            if let reading, reading.name == wanted {
                adopt(reading)
            } else if state == .connecting || state == .guarding {
                setState(.noSink)
            }
            return
        }
        guard let reading, reading.index == current.index else {
            lose(current)
            return
        }
        let level = SinkLevel(volume: reading.volume, muted: reading.muted)
        let check = verification
        verification = nil

        if let check {
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
            // The server's rendering of the written volume may differ by a few raw units.
            if level.volume != current.seen.volume, HeldLevel.admits(level.volume),
               level.volume.isClose(to: current.held.volume, tolerance: configuration.echoTolerance) {
                current.heldAsRead = level.volume
                current.seen.volume = level.volume
            }
        }

        let delta = Int64(level.volume.max) - Int64(current.seen.volume.max)
        let settled = current.seen == current.target
        if delta != 0 {
            let size = UInt32(delta.magnitude)
            publish(delta > 0 ? .up : .down, count: keyStep.count(for: size), on: current.name)
            if settled { keyStep.learn(from: size) }
        } else if level.muted != current.seen.muted {
            // A desktop that mutes at 0 % or unmutes on up does so with the volume press: one press.
            publish(.mute, count: 1, on: current.name)
        }
        current.seen = level
        guarded = current
        holdTarget(correcting: level, attempt: 0)
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
        lastSeq += 1
        presses[direction] += count
        outbox.append(.publish(Press(seq: lastSeq, direction: direction, count: count, sink: sink)))
    }

    // MARK: - Reads, writes and bookkeeping

    /// Reads the guarded sink when it may have changed, but never while a write or a read is in
    /// flight: a reading taken then could not be told from the write's echo.
    private mutating func readIfDue() {
        guard dirty, pendingWrites.isEmpty, readInFlight == nil, let guarded else { return }
        dirty = false
        read(.index(guarded.index))
    }

    private mutating func read(_ query: SinkQuery) {
        nextTicket += 1
        let ticket = ReadTicket(seq: nextTicket)
        readInFlight = ticket
        outbox.append(.readSink(query, ticket))
    }

    private mutating func issueTag() -> ResetTag {
        nextTag += 1
        return ResetTag(seq: nextTag)
    }

    private mutating func forgetConnection() {
        guarded = nil
        wanted = nil
        pendingWrites = []
        releaseWrites = []
        readInFlight = nil
        verification = nil
        dirty = false
    }

    private mutating func setState(_ new: GuardState) {
        guard new != state else { return }
        state = new
        outbox.append(.stateChanged(new))
    }
}
