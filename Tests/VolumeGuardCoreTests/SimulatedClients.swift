@testable import VolumeGuardCore

// A discrete-event simulation of the guard among other clients of one audio server: a virtual clock in
// microseconds, a server that behaves like PulseAudio or like pipewire-pulse (as in
// /work/shared/FIELD-NOTES.md), the real `GuardCore` as one client with its requests' latencies, and
// generated clients that step the volume the ways programs and desktops do. Every client's set that
// changes the sink is a step *made*; the judge compares them with what the guard reports.

/// A small deterministic generator (SplitMix64): the same seed gives the same history.
struct SimRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed &+ 0x9E37_79B9_7F4A_7C15
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A whole number in `range`, each equally likely.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// True with probability `percent` in 100.
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
}

/// Which server the simulation behaves like.
enum ServerKind: String, CaseIterable, CustomStringConvertible {
    /// Commands on a connection run in order on arrival; a set's ack is sent before the change event it
    /// caused; a read sees every set before it; a set to the current value emits nothing; a change event
    /// still queued for a client absorbs the next.
    case pulseAudio
    /// pipewire-pulse: a set reaches the device 0.3–1 ms after it arrives (sets from different clients in
    /// either order), its ack waits until the server has read the device back; reads are answered at once
    /// from that read-back (the cache), so they can be stale; a set equal to the cache is skipped; the
    /// change event follows the read-back, only if the read-back differs, and is coalesced like
    /// PulseAudio's.
    case pipeWire

    var description: String { rawValue }
}

/// What one generated client does.
struct ClientPlan: CustomStringConvertible {
    enum Kind: CustomStringConvertible {
        /// Reads the sink, and after `readToSet` sets what it read plus (or minus) one step: a desktop's
        /// volume key, pulsectl, the benchmark's probe. It waits for its set's ack before the next step,
        /// or does not (it sends the next read `next` after the set).
        case readModifyWrite(Direction, waitsForAck: Bool)
        /// `pactl set-sink-volume +5%` done by the server itself: no stale reading is possible.
        case serverSide(Direction)
        /// A mixer slider: sets the levels in turn, each an absolute value.
        case absolute([UInt32])
        /// Reads the mute and sets the opposite.
        case muteToggle(waitsForAck: Bool)

        var description: String {
            switch self {
            case .readModifyWrite(let direction, let waits): "rmw(\(direction)\(waits ? "" : ", no ack wait"))"
            case .serverSide(let direction): "serverSide(\(direction))"
            case .absolute(let levels): "absolute(\(levels))"
            case .muteToggle(let waits): "muteToggle\(waits ? "" : "(no ack wait)")"
            }
        }
    }

    /// One step's timing, in microseconds: from the read's reply to the set, and from the set's ack (or,
    /// for a client that does not wait, from sending the set) to the next step. For a client stepping
    /// at an `interval`, `next` is how late this step begins.
    struct Step: Hashable, CustomStringConvertible {
        var readToSet: Int
        var next: Int
        /// A read-modify-write step the other way than the client's direction.
        var reverse = false

        var description: String { "(\(readToSet), \(next)\(reverse ? ", reverse" : ""))" }
    }

    var kind: Kind
    /// When the first step begins, in microseconds of simulated time.
    var start: Int
    var steps: [Step]
    /// Steps begin at `start + i * interval` (the probe's rate mode) instead of after the previous one.
    var interval: Int?
    /// The loudest level a read-modify-write client sets: volume keys stop at 100 %, pulsectl at
    /// 152.5 %. A step there changes nothing, so no event tells of it.
    var ceiling = SinkVolume.norm

    var description: String {
        "ClientPlan(kind: .\(kind), start: \(start), steps: \(steps.map { $0.reverse ? [$0.readToSet, $0.next, 1] : [$0.readToSet, $0.next] }), interval: \(interval.map(String.init) ?? "nil"), ceiling: \(ceiling))"
    }
}

/// The server's latencies, in microseconds (ranges a seeded generator draws from).
struct ServerLatencies {
    /// A request's or a reply's way over the socket.
    var transit: ClosedRange<Int> = 15...80
    /// PulseAudio: from a change to the moment its event leaves the server.
    var eventFlush: ClosedRange<Int> = 20...250
    /// pipewire-pulse: from a set's arrival to the device taking it.
    var apply: ClosedRange<Int> = 300...1000
    /// pipewire-pulse: from the device taking a set to the server's read-back of it (cache, event, ack).
    var readBack: ClosedRange<Int> = 80...300
    /// pipewire-pulse: the ack of a skipped set.
    var skippedAck: ClosedRange<Int> = 30...200
    /// How long the guard takes over one event before its requests leave (publishing, the log).
    var guardWork: ClosedRange<Int> = 30...250

    /// A loaded two-core machine: every hop up to a few times slower, the guard up to 2 ms per event.
    static let loaded = ServerLatencies(
        transit: 15...300, eventFlush: 20...1_000, apply: 300...3_000, readBack: 80...1_000,
        skippedAck: 30...600, guardWork: 30...2_000
    )
}

/// The guard, its server and the generated clients, on one virtual clock.
final class CountingSimulation {
    static let sinkIndex: UInt32 = 1
    static let sinkName = "guard_a"
    static let guardConnection = 0

    let kind: ServerKind
    let step: UInt32
    var latencies: ServerLatencies
    private(set) var core: GuardCore
    private var random: SimRandom

    /// Simulated time in microseconds.
    private(set) var now = 0
    private var agenda: [(time: Int, order: Int, action: Occurrence)] = []
    private var order = 0

    /// The sink itself (the device's register).
    private(set) var volume: UInt32
    private(set) var muted = false
    /// pipewire-pulse's read-back of the sink: what reads answer and skipped sets compare with.
    private var cachedVolume: UInt32
    private var cachedMuted = false
    /// pipewire-pulse: sets that reached the device and await the read-back that acknowledges them.
    private var awaitingReadBack: [(connection: Int, reply: Reply)] = []
    private var readBackScheduled = false
    /// pipewire-pulse: when the last set of each connection reaches the device (sets of one connection
    /// stay in order).
    private var lastApply: [Int: Int] = [:]
    /// The last time a message reached each side of each connection (a socket keeps order).
    private var serverSideFree: [Int: Int] = [:]
    private var clientSideFree: [Int: Int] = [:]
    /// A change event queued for the guard and not yet sent: the next is absorbed into it.
    private var eventQueued = false

    // The guard's shell.
    private var guardInbox: [GuardEvent] = []
    private var guardBusy = false
    private var wakeUpDue: Int?

    private(set) var clients: [SimulatedClient] = []
    /// What the guard published, in order, with the time.
    private(set) var presses: [(time: Int, press: Press)] = []
    /// A line per occurrence, when `tracing`.
    var tracing = false
    private(set) var trace: [String] = []

    init(kind: ServerKind, seed: UInt64, step: UInt32 = 3277, held: UInt32 = 32768, keyStep: UInt32?, latencies: ServerLatencies = .init()) {
        self.kind = kind
        self.step = step
        self.latencies = latencies
        random = SimRandom(seed: seed)
        volume = held
        cachedVolume = held
        core = GuardCore(configuration: GuardCore.Configuration(keyStep: keyStep))
        post(at: 0, .toGuard(.connected))
    }

    func add(_ plan: ClientPlan) {
        let client = SimulatedClient(id: clients.count + 1, plan: plan)
        clients.append(client)
        if !plan.steps.isEmpty { post(at: plan.start + (plan.interval == nil ? 0 : plan.steps[0].next), .clientStep(client.id)) }
    }

    /// Runs until nothing is left to happen (the guard's timers included) or `limit` passes.
    func run(until limit: Int = 60_000_000) {
        while let next = agenda.first, next.time <= limit {
            agenda.removeFirst()
            now = next.time
            happen(next.action)
        }
    }

    /// The steps every client made, per direction.
    var made: PressCounts {
        var total = PressCounts()
        for client in clients {
            total.up += client.made.up
            total.down += client.made.down
            total.mute += client.made.mute
        }
        return total
    }

    var counted: PressCounts { core.presses }

    var held: UInt32 { core.guarded?.target.volume.max ?? 0 }

    // MARK: - Occurrences

    private enum Occurrence {
        /// A message reaches the guard's inbox.
        case toGuard(GuardEvent)
        /// The guard is done with an event: its requests leave, and it takes the next.
        case guardDone([GuardAction])
        case guardTimer(Int)
        /// A request reaches the server.
        case toServer(connection: Int, Request)
        /// PulseAudio sends the guard's queued change event.
        case flushEvent
        /// pipewire-pulse: a set reaches the device.
        case apply(connection: Int, Write, Reply)
        /// pipewire-pulse reads the device back.
        case readBack
        /// The server sends a reply it held back.
        case reply(Int, Reply)
        /// A reply reaches a client.
        case toClient(Int, Reply)
        case clientStep(Int)
        case clientSet(Int)
    }

    enum Write {
        case volume(UInt32, by: Int, Intent)
        case mute(Bool, by: Int)
        /// Relative, done by the server (pactl-like).
        case volumeBy(Int64, by: Int)
    }

    /// What a client meant a volume write to be, for counting the steps it made.
    enum Intent {
        case step(Direction)
        case absolute
        case reset
    }

    enum Request {
        case read(ReadTicket?)
        case readDefault
        case write(Write, Reply)
    }

    enum Reply {
        case sinkRead(ReadTicket?, volume: UInt32, muted: Bool)
        case defaultSink
        case ack(ResetTag?)
        case changed
    }

    private func post(at time: Int, _ action: Occurrence) {
        order += 1
        let entry = (time: time, order: order, action: action)
        let position = agenda.firstIndex { ($0.time, $0.order) > (time, order) } ?? agenda.endIndex
        agenda.insert(entry, at: position)
    }

    private func note(_ line: @autoclosure () -> String) {
        guard tracing else { return }
        let millis = "\(now / 1000).\(String(1000 + now % 1000).dropFirst())"
        trace.append(String(repeating: " ", count: max(0, 9 - millis.count)) + millis + " " + line())
    }

    private func happen(_ action: Occurrence) {
        switch action {
        case .toGuard(let event):
            guardInbox.append(event)
            guardNext()
        case .guardDone(let actions):
            for action in actions { perform(action) }
            guardBusy = false
            guardNext()
        case .guardTimer(let due):
            if wakeUpDue == due { wakeUpDue = nil }
            guardInbox.append(.wakeUp)
            guardNext()
        case .toServer(let connection, let request):
            serve(request, from: connection)
        case .flushEvent:
            eventQueued = false
            send(.changed, to: Self.guardConnection)
        case .apply(let connection, let write, let reply):
            let changed = apply(write)
            awaitingReadBack.append((connection, reply))
            note("device takes \(write) from \(connection)\(changed ? "" : " (no change)") -> \(volume)\(muted ? " muted" : "")")
            if !readBackScheduled {
                readBackScheduled = true
                post(at: now + random.int(latencies.readBack), .readBack)
            }
        case .readBack:
            readBackScheduled = false
            let changed = cachedVolume != volume || cachedMuted != muted
            cachedVolume = volume
            cachedMuted = muted
            note("read-back \(volume)\(muted ? " muted" : "")\(changed ? "" : " (unchanged)")")
            // The ack and the event leave together, in either order.
            let eventFirst = random.chance(50)
            if changed, eventFirst { queueEvent() }
            for (connection, reply) in awaitingReadBack { send(reply, to: connection) }
            awaitingReadBack = []
            if changed, !eventFirst { queueEvent() }
        case .reply(let connection, let reply):
            send(reply, to: connection)
        case .toClient(let id, let reply):
            if id == Self.guardConnection {
                guardReceives(reply)
            } else {
                clientReceives(id, reply)
            }
        case .clientStep(let id):
            clientStep(id)
        case .clientSet(let id):
            clientSet(id)
        }
    }

    // MARK: - The server

    private func send(_ reply: Reply, to connection: Int) {
        let at = max(now + random.int(latencies.transit), (clientSideFree[connection] ?? 0) + 1)
        clientSideFree[connection] = at
        post(at: at, .toClient(connection, reply))
    }

    private func request(_ request: Request, from connection: Int) {
        let at = max(now + random.int(latencies.transit), (serverSideFree[connection] ?? 0) + 1)
        serverSideFree[connection] = at
        post(at: at, .toServer(connection: connection, request))
    }

    private func queueEvent() {
        guard !eventQueued else {
            note("event absorbed into the one queued")
            return
        }
        eventQueued = true
        post(at: now + random.int(latencies.eventFlush), .flushEvent)
    }

    private func serve(_ request: Request, from connection: Int) {
        switch request {
        case .readDefault:
            send(.defaultSink, to: connection)
        case .read(let ticket):
            let reading = kind == .pulseAudio ? (volume, muted) : (cachedVolume, cachedMuted)
            note("read by \(connection): \(reading.0)\(reading.1 ? " muted" : "")")
            send(.sinkRead(ticket, volume: reading.0, muted: reading.1), to: connection)
        case .write(let write, let reply):
            switch kind {
            case .pulseAudio:
                let changed = apply(write)
                note("\(write) from \(connection)\(changed ? "" : " (no change)") -> \(volume)\(muted ? " muted" : "")")
                send(reply, to: connection)
                if changed { queueEvent() }
            case .pipeWire:
                var write = write
                if case .volumeBy(let delta, let client) = write {
                    // pipewire-pulse works out a relative set from what it knows: its read-back.
                    let to = UInt32(max(0, Int64(cachedVolume) + delta))
                    write = .volume(to, by: client, .step(delta > 0 ? .up : .down))
                }
                let skipped = switch write {
                case .volume(let value, _, _): value == cachedVolume
                case .mute(let value, _): value == cachedMuted
                case .volumeBy: false
                }
                if skipped {
                    note("\(write) from \(connection) skipped: the cache has it")
                    post(at: now + random.int(latencies.skippedAck), .reply(connection, reply))
                    return
                }
                let at = max(now + random.int(latencies.apply), (lastApply[connection] ?? 0) + 1)
                lastApply[connection] = at
                post(at: at, .apply(connection: connection, write, reply))
            }
        }
    }

    /// Changes the register; true when it changed. Counts a client's step made.
    private func apply(_ write: Write) -> Bool {
        switch write {
        case .volume(let value, let client, let intent):
            let old = volume
            guard value != old else { return false }
            volume = value
            if client != Self.guardConnection {
                let made: (Direction, Int) = switch intent {
                case .step(let direction): (direction, 1)
                case .absolute, .reset:
                    (value > old ? .up : .down, max(1, Int((Double(value > old ? value - old : old - value) / Double(step)).rounded())))
                }
                clients[client - 1].made[made.0] += made.1
            }
            return true
        case .mute(let value, let client):
            guard value != muted else { return false }
            muted = value
            if client != Self.guardConnection { clients[client - 1].made.mute += 1 }
            return true
        case .volumeBy(let delta, let client):
            return apply(.volume(UInt32(max(0, Int64(volume) + delta)), by: client, .step(delta > 0 ? .up : .down)))
        }
    }

    // MARK: - The guard's shell (SinkGuard): one event at a time, its requests on one connection

    private func guardNext() {
        guard !guardBusy, !guardInbox.isEmpty else { return }
        let event = guardInbox.removeFirst()
        let actions = core.handle(event, at: .microseconds(now))
        if case .wakeUp = event, let due = wakeUpDue, due <= now { wakeUpDue = nil }
        note("guard \(Self.describe(event)) -> \(actions.filter(Self.worthTracing).map(Self.describe))")
        for action in actions {
            if case .publish(let press) = action { presses.append((now, press)) }
        }
        guardBusy = true
        post(at: now + random.int(latencies.guardWork), .guardDone(actions))
    }

    private static func describe(_ event: GuardEvent) -> String {
        switch event {
        case .sinkRead(let ticket, let state): "read#\(ticket.seq) \(state.map { "\($0.volume.max)\($0.muted ? " muted" : "")" } ?? "-")"
        case .sinkChanged: "changed"
        case .written(let tag): "ack#\(tag.seq)"
        default: "\(event)"
        }
    }

    private static func describe(_ action: GuardAction) -> String {
        switch action {
        case .readSink(_, let ticket): "read#\(ticket.seq)"
        case .setVolume(_, let volume, let tag): "set#\(tag.seq) \(volume.max)"
        case .setMute(_, let muted, let tag): "mute#\(tag.seq) \(muted)"
        case .publish(let press): "PRESS \(press.direction) x\(press.count)"
        case .wakeUp(let after): "wake in \(after)"
        default: "\(action)"
        }
    }

    private static func worthTracing(_ action: GuardAction) -> Bool {
        switch action {
        case .stateChanged, .recordOriginals, .gesture: false
        default: true
        }
    }

    private func perform(_ action: GuardAction) {
        switch action {
        case .readDefaultSink:
            request(.readDefault, from: Self.guardConnection)
        case .readSink(_, let ticket):
            request(.read(ticket), from: Self.guardConnection)
        case .setVolume(_, let volume, let tag):
            request(.write(.volume(volume.max, by: Self.guardConnection, .reset), .ack(tag)), from: Self.guardConnection)
        case .setMute(_, let muted, let tag):
            request(.write(.mute(muted, by: Self.guardConnection), .ack(tag)), from: Self.guardConnection)
        case .wakeUp(let delay):
            // One timer at a time, for the earliest wake-up asked for, as SinkGuard keeps them.
            let due = now + Int(delay.components.seconds) * 1_000_000 + Int(delay.components.attoseconds / 1_000_000_000_000)
            if let pending = wakeUpDue, pending <= due { break }
            wakeUpDue = due
            post(at: max(due, now), .guardTimer(due))
        case .readSinks, .reconnect, .recordOriginals, .publish, .gesture, .stateChanged, .report:
            break
        }
    }

    private func guardReceives(_ reply: Reply) {
        let event: GuardEvent = switch reply {
        case .defaultSink: .defaultSink(Self.sinkName)
        case .sinkRead(let ticket, let volume, let muted):
            .sinkRead(ticket!, SinkState(index: Self.sinkIndex, name: Self.sinkName, volume: SinkVolume(uniform: volume, count: 2), muted: muted))
        case .ack(let tag): .written(tag!)
        case .changed: .sinkChanged(index: Self.sinkIndex)
        }
        guardInbox.append(event)
        guardNext()
    }

    // MARK: - The clients

    private func clientStep(_ id: Int) {
        let client = clients[id - 1]
        guard client.next < client.plan.steps.count else { return }
        switch client.plan.kind {
        case .readModifyWrite, .muteToggle:
            request(.read(nil), from: id)
        case .serverSide(let direction):
            clientSends(id, .volumeBy(direction == .up ? Int64(step) : -Int64(step), by: id))
        case .absolute(let levels):
            clientSends(id, .volume(levels[client.next % levels.count], by: id, .absolute))
        }
    }

    private func clientReceives(_ id: Int, _ reply: Reply) {
        let client = clients[id - 1]
        switch reply {
        case .sinkRead(_, let volume, let muted):
            client.read = (volume, muted)
            post(at: now + client.plan.steps[client.next].readToSet, .clientSet(id))
        case .ack:
            client.acked += 1
            if client.waitsForAck, client.plan.interval == nil { scheduleNextStep(id) }
        case .defaultSink, .changed:
            break
        }
    }

    private func clientSet(_ id: Int) {
        let client = clients[id - 1]
        guard let read = client.read else { return }
        client.read = nil
        switch client.plan.kind {
        case .readModifyWrite(let forward, _):
            let direction = client.plan.steps[client.next].reverse ? (forward == .up ? Direction.down : .up) : forward
            let to = direction == .up ? max(read.volume, min(read.volume + step, client.plan.ceiling)) : (read.volume > step ? read.volume - step : 0)
            // A step from the client's ceiling, or from silence, is a press made that moves nothing.
            if to == read.volume { client.made[direction] += 1 }
            clientSends(id, .volume(to, by: id, .step(direction)))
        case .muteToggle:
            clientSends(id, .mute(!read.muted, by: id))
        case .serverSide, .absolute:
            break
        }
    }

    private func clientSends(_ id: Int, _ write: Write) {
        let client = clients[id - 1]
        client.setTimes.append(now)
        note("client \(id) sends \(write)")
        request(.write(write, .ack(nil)), from: id)
        if !client.waitsForAck || client.plan.interval != nil { scheduleNextStep(id) }
    }

    private func scheduleNextStep(_ id: Int) {
        let client = clients[id - 1]
        let wait = client.plan.steps[client.next].next
        client.next += 1
        guard client.next < client.plan.steps.count else { return }
        if let interval = client.plan.interval {
            post(at: max(now, client.plan.start + client.next * interval + client.plan.steps[client.next].next), .clientStep(id))
        } else {
            post(at: now + wait, .clientStep(id))
        }
    }
}

extension CountingSimulation.Write: CustomStringConvertible {
    var description: String {
        switch self {
        case .volume(let value, _, let intent): "set \(value) (\(intent))"
        case .mute(let value, _): "mute \(value)"
        case .volumeBy(let delta, _): "step \(delta > 0 ? "+" : "")\(delta)"
        }
    }
}

/// A generated client as it runs: its plan, where it is, and the steps it made.
final class SimulatedClient {
    let id: Int
    let plan: ClientPlan
    var next = 0
    var read: (volume: UInt32, muted: Bool)?
    var acked = 0
    /// Its sets that changed the sink, in key steps per direction (an absolute set counts the steps it
    /// moved the sink by), and its steps from its ceiling or from silence, which change nothing.
    var made = PressCounts()
    /// When it sent each set.
    var setTimes: [Int] = []

    init(id: Int, plan: ClientPlan) {
        self.id = id
        self.plan = plan
    }

    var waitsForAck: Bool {
        switch plan.kind {
        case .readModifyWrite(_, let waits), .muteToggle(let waits): waits
        case .serverSide, .absolute: true
        }
    }

    /// The shortest time between two of its sets, in microseconds.
    var closestSets: Int? {
        zip(setTimes.dropFirst(), setTimes).map { $0 - $1 }.min()
    }
}
