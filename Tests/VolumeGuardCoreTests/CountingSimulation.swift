import GuardProtocol

@testable import VolumeGuardCore

/// The guard, its server and the generated clients, on one virtual clock.
final class CountingSimulation {
    static let sinkIndex: UInt32 = 1
    static let sinkName = "guard_a"
    static let guardConnection = 0

    let kind: ServerKind
    let step: UInt32
    var latencies: ServerLatencies
    /// The guard, as the daemon runs it, on the daemon's loop.
    let loop: MachineLoop<GuardMachine>
    var machine: GuardMachine { loop.machine }
    var random: SimRandom

    /// Simulated time in microseconds.
    var now = 0
    var agenda: [(time: Int, order: Int, action: Occurrence)] = []
    var order = 0

    /// The sink itself (the device's register).
    var volume: UInt32
    var muted = false
    /// pipewire-pulse's read-back of the sink: what reads answer and skipped sets compare with.
    var cachedVolume: UInt32
    var cachedMuted = false
    /// pipewire-pulse: sets that reached the device and await the read-back that acknowledges them.
    var awaitingReadBack: [(connection: Int, reply: Reply)] = []
    var readBackScheduled = false
    /// pipewire-pulse: when the last set of each connection reaches the device (sets of one connection
    /// stay in order).
    var lastApply: [Int: Int] = [:]
    /// The last time a message reached each side of each connection (a socket keeps order).
    var serverSideFree: [Int: Int] = [:]
    var clientSideFree: [Int: Int] = [:]
    /// A change event queued for the guard and not yet sent: the next is absorbed into it.
    var eventQueued = false

    var clients: [SimulatedClient] = []
    /// What the guard published, in order, with the time.
    var presses: [(time: Int, press: Press)] = []
    /// A line per occurrence, when `tracing`.
    var tracing = false
    var trace: [String] = []

    init(kind: ServerKind, seed: UInt64, step: UInt32 = 3277, held: UInt32 = 32768, keyStep: UInt32?, latencies: ServerLatencies = .init()) {
        self.kind = kind
        self.step = step
        self.latencies = latencies
        random = SimRandom(seed: seed)
        volume = held
        cachedVolume = held
        loop = MachineLoop(GuardMachine(configuration: GuardMachine.Configuration(core: GuardCore.Configuration(keyStep: keyStep))))
        post(at: 0, .toGuard(.start))
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

    var counted: PressCounts {
        presses.reduce(into: PressCounts()) { counts, seen in counts[seen.press.direction!] += seen.press.count }
    }

    var held: UInt32 { machine.core.guarded?.target.volume.max ?? 0 }

    // MARK: - Occurrences

    enum Occurrence {
        /// An input reaches the guard's inbox.
        case toGuard(GuardMachine.Input)
        /// The guard is done with an input: its requests leave, and it takes the next.
        case guardDone([GuardMachine.Effect])
        case guardTimer(Duration)
        /// A request reaches the server.
        case toServer(connection: Int, Request)
        /// PulseAudio sends the guard's queued change event.
        case flushEvent
        /// pipewire-pulse: a set reaches the device.
        case apply(connection: Int, Write, Reply)
        /// pipewire-pulse reads the device back.
        case readBack
        /// The server sends a reply it kept back.
        case reply(Int, Reply)
        /// A reply reaches a client.
        case toClient(Int, Reply)
        case clientStep(Int)
        case clientSet(Int)
        /// A client's request that follows another of the same step (a desktop key's volume after its mute).
        case clientWrite(Int, Write)
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
        case ack(WriteTag?)
        case changed
    }

    /// Posts a timer the guard set, as its mainloop runs it.
    func setTimer(_ due: Duration) {
        post(at: max(Int(due / .microseconds(1)), now), .guardTimer(due))
    }

    func post(at time: Int, _ action: Occurrence) {
        order += 1
        let entry = (time: time, order: order, action: action)
        let position = agenda.firstIndex { ($0.time, $0.order) > (time, order) } ?? agenda.endIndex
        agenda.insert(entry, at: position)
    }

    func note(_ line: @autoclosure () -> String) {
        guard tracing else { return }
        let millis = "\(now / 1000).\(String(1000 + now % 1000).dropFirst())"
        trace.append(String(repeating: " ", count: max(0, 9 - millis.count)) + millis + " " + line())
    }

    func happen(_ action: Occurrence) {
        switch action {
        case .toGuard(let event):
            loop.enqueue(event)
            guardNext()
        case .guardDone(let effects):
            for effect in effects { perform(effect) }
            loop.endTurn()
            guardNext()
        case .guardTimer(let due):
            loop.enqueue(.timerFired(due: due))
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
        case .clientWrite(let id, let write):
            note("client \(id) sends \(write)")
            request(.write(write, .ack(nil)), from: id)
        }
    }
}
