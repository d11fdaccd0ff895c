import GuardProtocol
import Testing
import VolumeGuardCore

/// Raw volume values the tests speak in.
enum Raw {
    /// 100 %.
    static let full: UInt32 = 65536
    /// A 5 % key step (KDE), as libpulse rounds it.
    static let step5: UInt32 = 3277
    /// A 6 % key step (GNOME).
    static let step6: UInt32 = 3932
}

/// Sink names the tests use.
enum Name {
    static let speakers = "alsa_output.pci-0000_00_1f.3.analog-stereo"
    static let headset = "bluez_output.00_1B_66_AA_BB_CC.1"
    static let hdmi = "alsa_output.pci-0000_01_00.1.hdmi-stereo"
}

/// A sink as the simulated server stores it: its register.
struct SimulatedSink: Hashable {
    var index: UInt32
    var name: String
    var volume: SinkVolume
    var muted: Bool

    init(index: UInt32, name: String, _ channels: [UInt32], muted: Bool = false) {
        self.index = index
        self.name = name
        self.volume = SinkVolume(channels: channels)
        self.muted = muted
    }

    var reading: SinkState { SinkState(index: index, name: name, volume: volume, muted: muted) }
    var level: SinkLevel { SinkLevel(volume: volume, muted: muted) }
}

/// Plays the daemon's shell around a `GuardCore`, against a simulated audio server.
///
/// The server is a plain register of sinks. It answers the core's requests when they are issued
/// (a read sees the register as it is then) and queues its replies and change events in `inbox`,
/// which `settle()` delivers to the core in order. Like PulseAudio, a write's acknowledgement is
/// queued before the change event the write caused, and a write or a person's change that leaves a
/// sink as it was emits no event. Knobs model the other server's habits: deferred acknowledgements,
/// skipped sets and float rendering. A person acts on the register directly (`userSets`, ...).
struct Harness {
    var core: GuardCore
    var sinks: [SimulatedSink]
    var defaultSink: String?

    /// Messages from the server on their way to the core, in order.
    var inbox: [GuardEvent] = []
    /// Every action the core returned, in order.
    var log: [GuardAction] = []
    /// The events delivered to the core, in order.
    var delivered: [GuardEvent] = []

    /// Keeps write acknowledgements back in `withheld` until `deliverWithheldAcks()` (pipewire-pulse defers
    /// them), while the writes themselves are applied at once.
    var holdAcks = false
    var withheld: [GuardEvent] = []
    /// How many of the coming writes the server acknowledges without applying them or emitting an
    /// event (pipewire-pulse skipping a set equal to its stale cache).
    var skipWrites = 0
    /// How the server stores a written raw value (pipewire-pulse keeps floats); values not listed are
    /// stored as written.
    var rendering: [UInt32: UInt32] = [:]
    /// False while the connection is down: requests go nowhere.
    var online = true
    /// The connection is never told the default sink (pipewire-pulse 0.3.65, to a connection accepted in
    /// its first moments): it reads none until the core asks for a fresh connection.
    var blind = false
    /// The time given with each event. A person acts at a person's pace (see `change`); the server
    /// answers at once; a requested wake-up moves the clock on by its delay.
    var clock: Duration = .zero
    /// When the wake-ups the core asked for are due; they fire as the clock passes them.
    var timers: [Duration] = []
    /// Another client that sets this level again right after every write of the guard's.
    var fighter: (sink: String, level: SinkLevel)?

    init(
        _ sinks: [SimulatedSink], default defaultSink: String?,
        configuration: GuardCore.Configuration = .init(), remembered: [String: SinkLevel] = [:]
    ) {
        self.core = GuardCore(configuration: configuration, remembered: remembered)
        self.sinks = sinks
        self.defaultSink = defaultSink
    }

    /// A harness whose core has connected and settled on the default sink.
    static func guarding(
        _ sinks: [SimulatedSink], default defaultSink: String? = nil,
        configuration: GuardCore.Configuration = .init(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Harness {
        var harness = Harness(sinks, default: defaultSink ?? sinks.first?.name, configuration: configuration)
        harness.feed(.connected)
        harness.settle(sourceLocation: sourceLocation)
        return harness
    }

    // MARK: - Driving the core

    /// Delivers one event to the core and serves the requests it returns.
    @discardableResult
    mutating func feed(_ event: GuardEvent) -> [GuardAction] {
        delivered.append(event)
        let actions = core.handle(event, at: clock)
        log += actions
        for action in actions { serve(action) }
        return actions
    }

    /// Delivers the next queued message, if any.
    @discardableResult
    mutating func step() -> Bool {
        guard !inbox.isEmpty else { return false }
        feed(inbox.removeFirst())
        return true
    }

    /// Delivers queued messages until none is left.
    mutating func settle(sourceLocation: SourceLocation = #_sourceLocation) {
        for _ in 0..<1_000 {
            guard step() else { return }
        }
        Issue.record("the guard never settled: \(inbox.count) messages still queued", sourceLocation: sourceLocation)
    }

    /// Lets `duration` pass with the server quiet: every wake-up due by then is delivered, in time order,
    /// each followed by all it leads to.
    mutating func wait(_ duration: Duration, sourceLocation: SourceLocation = #_sourceLocation) {
        settle(sourceLocation: sourceLocation)
        let end = clock + duration
        fireTimers(upTo: end, settling: true)
        clock = end
    }

    /// Delivers the wake-ups due by `time`, moving the clock to each.
    private mutating func fireTimers(upTo time: Duration, settling: Bool) {
        while let due = timers.min(), due <= time {
            timers.remove(at: timers.firstIndex(of: due)!)
            clock = max(clock, due)
            feed(.wakeUp)
            if settling { settle() }
        }
    }

    /// Lets the withheld acknowledgements through, in the order they were sent.
    mutating func deliverWithheldAcks() {
        inbox += withheld
        withheld = []
    }

    // MARK: - The server

    private mutating func serve(_ action: GuardAction) {
        guard online else { return }
        switch action {
        case .readDefaultSink:
            inbox.append(.defaultSink(blind ? nil : defaultSink))
        case .readSink(let query, let ticket):
            let sink: SimulatedSink? =
                switch query {
                case .index(let index): sinks.first { $0.index == index }
                case .name(let name): sinks.first { $0.name == name }
                }
            inbox.append(.sinkRead(ticket, sink?.reading))
        case .reconnect:
            blind = false
            inbox.append(.disconnected)
            inbox.append(.connected)
        case .wakeUp(let delay):
            timers.append(clock + delay)
        case .readSinks(let ticket):
            inbox.append(.sinksRead(ticket, sinks.map(\.reading)))
        case .setVolume(let index, let volume, let tag):
            let stored = SinkVolume(channels: volume.channels.map { rendering[$0] ?? $0 })
            write(tag, to: index) { $0.volume = stored }
        case .setMute(let index, let muted, let tag):
            write(tag, to: index) { $0.muted = muted }
        case .pressed, .pressesInterrupted, .stateChanged, .report, .recordOriginals:
            break
        }
    }

    private mutating func write(_ tag: WriteTag, to index: UInt32, _ change: (inout SimulatedSink) -> Void) {
        guard let position = sinks.firstIndex(where: { $0.index == index }) else {
            acknowledge(tag)
            return
        }
        if skipWrites > 0 {
            skipWrites -= 1
            acknowledge(tag)
            return
        }
        var sink = sinks[position]
        change(&sink)
        acknowledge(tag)
        if sink != sinks[position] {
            sinks[position] = sink
            inbox.append(.sinkChanged(index: index))
        }
        // A fighting client answers every write at once with its own level.
        if let fighter, fighter.sink == sink.name, sinks[position].level != fighter.level {
            sinks[position].volume = fighter.level.volume
            sinks[position].muted = fighter.level.muted
            inbox.append(.sinkChanged(index: index))
        }
    }

    private mutating func acknowledge(_ tag: WriteTag) {
        if holdAcks {
            withheld.append(.written(tag))
        } else {
            inbox.append(.written(tag))
        }
    }

    // MARK: - A person, or another client, acting on the server

    /// Sets a sink's channels (and mute, if given), as a volume key or a mixer does.
    mutating func userSets(_ name: String, _ channels: [UInt32], muted: Bool? = nil) {
        change(name) { sink in
            sink.volume = SinkVolume(channels: channels)
            if let muted { sink.muted = muted }
        }
    }

    /// Sets every channel of a sink to `raw`.
    mutating func userSets(_ name: String, raw: UInt32, muted: Bool? = nil) {
        userSets(name, Array(repeating: raw, count: sink(name).volume.channels.count), muted: muted)
    }

    /// Moves every channel of a sink by `delta` raw units (floored at 0), as a key on a balanced sink,
    /// from the level the sink has when the person acts.
    mutating func userMoves(_ name: String, by delta: Int64) {
        userAdjusts(name) { sink in
            sink.volume = SinkVolume(channels: sink.volume.channels.map { UInt32(Swift.max(0, Int64($0) + delta)) })
        }
    }

    /// Changes a sink as `body` decides from its state when the person acts (after the wake-ups due by
    /// then, which may have written to it).
    mutating func userAdjusts(_ name: String, _ body: (inout SimulatedSink) -> Void) {
        change(name, body)
    }

    mutating func userToggles(muteOf name: String) {
        change(name) { $0.muted.toggle() }
    }

    /// Something about the sink changed that is neither volume nor mute (state, port, proplist).
    mutating func touch(_ name: String) {
        inbox.append(.sinkChanged(index: sink(name).index))
    }

    mutating func setDefault(_ name: String?) {
        defaultSink = name
        inbox.append(.serverChanged)
    }

    mutating func unplug(_ name: String, newDefault: String?) {
        let index = sink(name).index
        sinks.removeAll { $0.name == name }
        inbox.append(.sinkRemoved(index: index))
        setDefault(newDefault)
    }

    /// A device is plugged in (or a module loaded): a new sink appears.
    mutating func plug(_ sink: SimulatedSink) {
        sinks.append(sink)
        inbox.append(.sinkAdded(index: sink.index))
    }

    /// The connection drops: queued messages are lost with it.
    mutating func disconnect() {
        online = false
        inbox = []
        withheld = []
        feed(.disconnected)
    }

    /// A connection to a (possibly restarted) server is ready.
    mutating func reconnect(sourceLocation: SourceLocation = #_sourceLocation) {
        online = true
        feed(.connected)
        settle(sourceLocation: sourceLocation)
    }

    private mutating func change(_ name: String, _ body: (inout SimulatedSink) -> Void) {
        guard let position = sinks.firstIndex(where: { $0.name == name }) else {
            Issue.record("no sink named \(name)")
            return
        }
        // A person acts a little later; timers due by then have fired (messages stay queued as they are).
        fireTimers(upTo: clock + pace, settling: false)
        clock += pace
        var sink = sinks[position]
        body(&sink)
        guard sink != sinks[position] else { return }
        sinks[position] = sink
        inbox.append(.sinkChanged(index: sink.index))
    }

    /// The time between a person's actions: deliberate taps unless a test holds a key (auto-repeat).
    var pace: Duration = .milliseconds(300)

    // MARK: - What happened

    func sink(_ name: String) -> SimulatedSink {
        guard let sink = sinks.first(where: { $0.name == name }) else {
            fatalError("no sink named \(name)")
        }
        return sink
    }

    /// The key steps of the presses the core saw, per direction.
    var counts: PressCounts {
        presses.reduce(into: PressCounts()) { counts, press in counts[press.direction!] += press.count }
    }

    /// The presses the core saw, numbered as the press pipeline numbers them.
    var presses: [Press] {
        let seen = log.compactMap { action -> (Direction, Int, String)? in
            if case .pressed(let direction, let count, let sink) = action { (direction, count, sink) } else { nil }
        }
        return seen.enumerated().map { Press(seq: UInt64($0.offset + 1), direction: $0.element.0, count: $0.element.1, sink: $0.element.2) }
    }

    var reports: [GuardReport] {
        log.compactMap { if case .report(let report) = $0 { report } else { nil } }
    }

    /// The custody records the core asked for, in order.
    var records: [[String: SinkLevel]] {
        log.compactMap { if case .recordOriginals(let originals) = $0 { originals } else { nil } }
    }

    var states: [GuardState] {
        log.compactMap { if case .stateChanged(let state) = $0 { state } else { nil } }
    }

    /// The volume writes the core issued, in order.
    var volumeWrites: [(sink: UInt32, volume: SinkVolume)] {
        log.compactMap { if case .setVolume(let sink, let volume, _) = $0 { (sink, volume) } else { nil } }
    }

    /// The mute writes the core issued, in order.
    var muteWrites: [(sink: UInt32, muted: Bool)] {
        log.compactMap { if case .setMute(let sink, let muted, _) = $0 { (sink, muted) } else { nil } }
    }

    var reads: [(query: SinkQuery, ticket: ReadTicket)] {
        log.compactMap { if case .readSink(let query, let ticket) = $0 { (query, ticket) } else { nil } }
    }

    /// Forgets what happened so far, so a test can look at what comes next.
    mutating func clearLog() {
        log = []
        delivered = []
    }
}

extension SinkVolume {
    /// `[30000, 20000]` instead of `SinkVolume(channels: [30000, 20000])`.
    static func channels(_ channels: UInt32...) -> SinkVolume { SinkVolume(channels: channels) }
}
