import GuardSettings
import FoundationEssentials
import VolumeGuardCore
import GuardProtocol
import Logging
import NIOCore
import PulseBridge
import ServiceLifecycle

/// Owns the guard core, the audio server connection and the subscribers.
///
/// Data flows one way: libpulse events and request completions are yielded, on libpulse's thread and in
/// libpulse's order, into one inbox; a single loop feeds them to the core and performs the actions it
/// returns (writes and reads go back to libpulse, presses go to subscriber queues). Nothing else touches
/// the core except to read it for status, so its decisions never see events out of order.
///
/// It also keeps what the core asks to be recorded (the original levels in its custody) on disk, hands
/// presses to the action runner, tells systemd how it is doing, and decides when the core holds the sink:
/// not while a client has paused it, and in `while-subscribed` mode only while someone is subscribed.
public actor SinkGuard: Service, CustomStringConvertible {
    private enum Input: Sendable {
        case core(GuardEvent)
        case pulse(PulseEvent, generation: Int)
        case connected(PulseConnection, generation: Int, server: String)
        case connectFailed(String, generation: Int)
        case reconnect
        case releaseTimedOut
        /// Resumed once everything posted before it has been handled.
        case handled(CheckedContinuation<Void, Never>)
    }

    /// Reconnect attempts start fast and back off to this.
    static let maximumBackoff: Duration = .seconds(1)
    /// How long a shutdown waits for the server to acknowledge the restore before giving up.
    static let releaseTimeout: Duration = .seconds(3)
    /// How long a client's `resume` waits for the guard to hold its sink again before it is answered.
    static let resumeWait: Duration = .seconds(2)

    /// As the daemon started: the socket, server and history length are not changed by a reload.
    private let configuration: Configuration
    private var mode: GuardMode
    /// A client asked for a pause and has not resumed; in any mode, that holds.
    private var clientPaused = false
    /// What the core was last told: paused (true) or guarding.
    private var holdPaused = false
    private let logger: Logger
    private var core: GuardCore
    private let record: OriginalsRecord
    private let actions: ActionRunner
    private let notifier: SystemdNotifier
    private let inbox: AsyncStream<Input>
    private let post: AsyncStream<Input>.Continuation
    private var connection: PulseConnection?
    /// Counts connections, so that events of an old one are told from the current one's.
    private var generation = 0
    private var backoff: Duration = .milliseconds(50)
    /// When the timer for the core's earliest wake-up fires, while one runs.
    private var wakeUpDue: ContinuousClock.Instant?
    private var serverDescription: String?
    private var subscribers: [ObjectIdentifier: ClientQueue] = [:]
    /// The subscribers that asked for presses without gesture lines.
    private var gestureless: Set<ObjectIdentifier> = []
    /// The latest presses, replayed to subscribers that resume with `since`.
    private var history: PressHistory
    /// The state line subscribers were last sent.
    private var announced: StateMessage?
    private let started = ContinuousClock.now

    /// A guard that starts from `record`: the levels a previous run on this socket did not give back.
    public init(configuration: Configuration, logger: Logger, record: OriginalsRecord, actions: ActionRunner, notifier: SystemdNotifier) {
        var remembered: [String: SinkLevel] = [:]
        do {
            remembered = try record.load()
        } catch {
            logger.warning("cannot read the record of original levels; starting without it", metadata: ["path": "\(record.path)", "error": "\(error)"])
        }
        if !remembered.isEmpty {
            logger.notice("a previous run ended without giving every sink back", metadata: ["sinks": "\(remembered.keys.sorted().joined(separator: ","))"])
        }
        self.configuration = configuration
        self.mode = configuration.mode
        self.logger = logger
        self.core = GuardCore(configuration: configuration.core, remembered: remembered)
        self.record = record
        self.actions = actions
        self.notifier = notifier
        self.history = PressHistory(capacity: configuration.historyCapacity)
        (inbox, post) = AsyncStream.makeStream(of: Input.self)
    }

    public nonisolated var description: String { "SinkGuard" }

    /// Guards until a graceful shutdown, then gives the sink back and returns.
    public func run() async {
        await withGracefulShutdownHandler {
            await loop()
        } onGracefulShutdown: { [post, notifier] in
            notifier.notify("STOPPING=1")
            post.yield(.core(.shutdown))
            Self.post(.releaseTimedOut, to: post, at: .now + Self.releaseTimeout)
        }
    }

    private func loop() async {
        updateHold()
        connect()
        // The socket was bound before the services started: clients can connect from now on.
        notifier.notify("READY=1")
        for await input in inbox {
            handle(input)
        }
        connection?.close()
        connection = nil
        for queue in subscribers.values { queue.finish() }
        subscribers = [:]
    }

    // MARK: - Requests from clients

    /// Queues the `subscribed` reply and the presses after `since` still in the history, then registers
    /// `queue` for live lines. All in one turn of the actor, so no press is lost or sent twice between
    /// the replay and the live ones. A nil `since` means live presses only.
    func subscribe(_ queue: ClientQueue, id: RequestID?, since: UInt64?, gestures: Bool = true) {
        let replay = since.map(history.replay(after:)) ?? PressHistory.Replay(lines: [], gap: false)
        queue.send(ByteBuffer(line: SubscribedMessage(id: id, lastSeq: core.lastSeq, gap: replay.gap)))
        for line in replay.lines {
            guard queue.send(line) else { return }
        }
        subscribers[ObjectIdentifier(queue)] = queue
        if !gestures { gestureless.insert(ObjectIdentifier(queue)) }
        updateHold()
    }

    /// Each client's queue holds a whole replay and then some, so that only a client that stops reading
    /// is cut loose, never one that just resumed.
    nonisolated var clientQueueCapacity: Int {
        configuration.historyCapacity + ClientQueue.headroom
    }

    func unsubscribe(_ queue: ClientQueue) {
        subscribers[ObjectIdentifier(queue)] = nil
        gestureless.remove(ObjectIdentifier(queue))
        updateHold()
    }

    /// Applies a reloaded configuration: mode, actions and the core's settings take effect at once.
    public func reload(_ new: Configuration) {
        mode = new.mode
        actions.replace(new.actions)
        post.yield(.core(.reconfigure(new.core)))
        updateHold()
    }

    /// Tells the core to pause or resume when what clients and the mode ask for changes. A client's
    /// `pause` holds until a `resume`, whoever subscribes or leaves; in `while-subscribed` mode the guard
    /// also waits for a subscriber, and lets go when the last one leaves.
    private func updateHold() {
        let paused = clientPaused || (mode == .whileSubscribed && subscribers.isEmpty)
        guard paused != holdPaused else { return }
        holdPaused = paused
        post.yield(.core(paused ? .pause : .resume))
    }

    private func setClientPaused(_ paused: Bool) {
        clientPaused = paused
        updateHold()
    }

    func status(id: RequestID?) -> StatusMessage {
        let guarded = core.guarded
        return StatusMessage(
            id: id,
            state: core.state,
            sink: guarded?.name,
            held: guarded.map { LevelMessage($0.held.volume) },
            original: guarded.map { LevelMessage($0.original.volume) },
            muted: guarded?.original.muted,
            presses: PressCountsMessage(core.presses),
            lastSeq: core.lastSeq,
            subscribers: subscribers.count,
            server: serverDescription,
            uptimeSeconds: (ContinuousClock.now - started).seconds,
            contested: core.isContested
        )
    }

    /// Pauses or resumes guarding, in turn with everything else the core is told; returns once the core
    /// has taken it, so that a client's next request sees the new state. A resume reads the sink before
    /// guarding it again: that is waited for too, for `resumeWait` at most (the server may be gone).
    nonisolated func set(paused: Bool) async {
        await setClientPaused(paused)
        await withCheckedContinuation { handled in
            if case .terminated = post.yield(.handled(handled)) { handled.resume() }
        }
        let deadline = ContinuousClock.now + Self.resumeWait
        while !paused, await core.state == .connecting, ContinuousClock.now < deadline {
            // A cancelled wait (the daemon shutting down) ends at once rather than spinning to the deadline.
            do { try await Task.sleep(for: .milliseconds(5)) } catch { return }
        }
    }

    // MARK: - The loop

    private func handle(_ input: Input) {
        switch input {
        case .core(let event):
            if case .wakeUp = event, let due = wakeUpDue, due <= .now { wakeUpDue = nil }
            feed(event)
        case .pulse(let event, let from):
            guard from == generation else { return }
            pulse(event)
        case .connected(let new, let from, let server):
            guard from == generation, core.state != .stopped else { return new.close() }
            connection = new
            serverDescription = server
            backoff = .milliseconds(50)
            logger.info("connected to the audio server", metadata: ["server": "\(server)"])
            feed(.connected)
        case .connectFailed(let reason, let from):
            guard from == generation else { return }
            logger.warning("cannot reach the audio server; retrying", metadata: ["reason": "\(reason)", "in": "\(backoff)"])
            scheduleReconnect()
        case .reconnect:
            guard core.state != .stopped else { return }
            connect()
        case .releaseTimedOut:
            logger.error("the audio server did not acknowledge the restore in time")
            post.finish()
        case .handled(let continuation):
            continuation.resume()
        }
        if core.state == .stopped, core.isReleased { post.finish() }
    }

    private func pulse(_ event: PulseEvent) {
        switch event {
        case .sinkChanged(let index): feed(.sinkChanged(index: index))
        case .sinkRemoved(let index):
            logger.debug("sink removed", metadata: ["index": "\(index)"])
            feed(.sinkRemoved(index: index))
        case .serverChanged:
            logger.debug("server changed")
            feed(.serverChanged)
        case .sinkAdded(let index):
            logger.debug("sink added", metadata: ["index": "\(index)"])
            feed(.sinkAdded(index: index))
        case .disconnected(let reason):
            logger.warning("lost the audio server", metadata: ["reason": "\(reason)"])
            connection?.close()
            connection = nil
            serverDescription = nil
            feed(.disconnected)
            scheduleReconnect()
        }
    }

    private func connect() {
        generation += 1
        let generation = generation
        let post = post
        let server = configuration.server
        let fresh = PulseConnection(applicationName: "volume-guard") { event in
            post.yield(.pulse(event, generation: generation))
        }
        Task {
            do {
                try await fresh.connect(to: server)
                let info = try await fresh.serverInfo()
                post.yield(.connected(fresh, generation: generation, server: "\(info.name) \(info.version)"))
            } catch {
                fresh.close()
                post.yield(.connectFailed("\(error)", generation: generation))
            }
        }
    }

    private func scheduleReconnect() {
        let delay = backoff
        backoff = min(backoff * 2, Self.maximumBackoff)
        Self.post(.reconnect, to: post, at: .now + delay)
    }

    /// Posts `input` when `due` comes: the guard's timers, on the continuous clock.
    private static func post(_ input: Input, to post: AsyncStream<Input>.Continuation, at due: ContinuousClock.Instant) {
        Task {
            try? await Task.sleep(until: due)
            post.yield(input)
        }
    }

    // MARK: - Performing the core's actions

    /// Hands the core one event, with the time it is handled, and performs what it returns.
    private func feed(_ event: GuardEvent) {
        perform(core.handle(event, at: ContinuousClock.now - started))
    }

    private func perform(_ actions: [GuardAction]) {
        for action in actions {
            perform(action)
        }
        announceState()
    }

    private func perform(_ action: GuardAction) {
        let post = post
        switch action {
        case .readDefaultSink:
            connection?.requestDefaultSink { [logger] name in
                logger.debug("default sink", metadata: ["name": "\(name ?? "-")"])
                post.yield(.core(.defaultSink(name)))
            }
        case .readSink(let query, let ticket):
            connection?.requestSink(query) { post.yield(.core(.sinkRead(ticket, $0))) }
        case .reconnect:
            post.yield(.pulse(.disconnected(reason: "the server names no default sink to this connection"), generation: generation))
        case .wakeUp(let delay):
            // One timer at a time, for the earliest wake-up asked for: the core asks again, on any wake-up,
            // for whatever is still due later.
            let due = ContinuousClock.now + delay
            if let pending = wakeUpDue, pending <= due { break }
            wakeUpDue = due
            Self.post(.core(.wakeUp), to: post, at: due)
        case .readSinks(let ticket):
            connection?.requestSinks { sinks in
                if let sinks { post.yield(.core(.sinksRead(ticket, sinks))) }
            }
        case .setVolume(let sink, let volume, let tag):
            connection?.setSinkVolume(index: sink, to: volume) { post.yield(.core(.written(tag, succeeded: $0))) }
        case .setMute(let sink, let muted, let tag):
            connection?.setSinkMute(index: sink, muted: muted) { post.yield(.core(.written(tag, succeeded: $0))) }
        case .recordOriginals(let originals):
            // Before the writes that follow: a crash after them must find the levels they overwrite.
            do {
                try record.save(originals)
            } catch {
                logger.error("cannot record the original levels; a crash now would lose them", metadata: ["error": "\(error)"])
            }
        case .publish(let press):
            logger.debug("press", metadata: ["seq": "\(press.seq)", "direction": "\(press.direction)", "count": "\(press.count)"])
            let line = ByteBuffer(line: PressMessage(press, time: WireFormat.timestamp(Date())))
            history.append(seq: press.seq, line: line)
            broadcast(line)
            actions.run(for: press)
        case .gesture(let gesture):
            logger.debug("gesture", metadata: ["gesture": "\(gesture.kind.rawValue)", "direction": "\(gesture.direction)"])
            broadcast(ByteBuffer(line: GestureMessage(gesture, sink: core.guarded?.name, time: WireFormat.timestamp(Date()))), skipping: gestureless)
        case .stateChanged(let state):
            logger.info("state", metadata: ["state": "\(state.rawValue)"])
        case .report(let report):
            log(report)
        }
    }

    /// Tells subscribers the guard's state and guarded sink when either changed. A switch of sinks keeps
    /// the state `guarding` and is news all the same; `guarding` without a sink is the middle of such a
    /// switch, not worth a line.
    private func announceState() {
        let current = StateMessage(state: core.state, sink: core.guarded?.name)
        guard current != announced, current.state != .guarding || current.sink != nil else { return }
        announced = current
        broadcast(ByteBuffer(line: current))
        notifier.notify("STATUS=\(current.state.rawValue)\(current.sink.map { " \($0)" } ?? "")")
    }

    /// Queues one line for every subscriber but those `skipping`; one that cannot take it is dropped.
    private func broadcast(_ line: ByteBuffer, skipping: Set<ObjectIdentifier> = []) {
        for (key, queue) in subscribers where !skipping.contains(key) && !queue.send(line) {
            subscribers[key] = nil
            gestureless.remove(key)
            logger.notice("subscriber cut loose: it stopped reading")
        }
        updateHold()
    }

    private func log(_ report: GuardReport) {
        switch report {
        case .guarding(let sink, let original, let held):
            logger.info("guarding sink", metadata: ["sink": "\(sink)", "original": "\(original.volume)", "muted": "\(original.muted)", "held": "\(held)"])
        case .released(let sink, let level):
            logger.info("gave the sink its level back", metadata: ["sink": "\(sink)", "volume": "\(level.volume)", "muted": "\(level.muted)"])
        case .resetRetried(let sink, let attempt):
            logger.debug("reset did not take; issued again", metadata: ["sink": "\(sink)", "attempt": "\(attempt)"])
        case .resetAbandoned(let sink):
            logger.warning("reset keeps not taking; leaving the sink where it is", metadata: ["sink": "\(sink)"])
        case .recovered(let sink, let level):
            logger.notice("restoring \(sink) to its recorded level from a previous run", metadata: ["volume": "\(level.volume)", "muted": "\(level.muted)"])
        case .sinkLost(let sink):
            logger.notice("guarded sink went away", metadata: ["sink": "\(sink)"])
        case .contested(let sink, let held):
            logger.warning(
                "another client sets the volume right after every reset; holding its level instead of fighting it",
                metadata: ["sink": "\(sink)", "held": "\(held)"]
            )
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
