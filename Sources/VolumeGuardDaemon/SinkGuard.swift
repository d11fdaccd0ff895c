import GuardSettings
import FoundationEssentials
import VolumeGuardCore
import GuardProtocol
import Logging
import NIOCore
import NIOPosix
import PulseBridge
import ServiceLifecycle

/// Owns the guard core, the audio server connection and the subscribers.
///
/// Data flows one way: libpulse events and request completions are yielded, on libpulse's thread and in
/// libpulse's order, into one inbox; a single loop feeds them to the core and performs the actions it
/// returns (writes and reads go back to libpulse, presses go to the `SubscriberHub`). Clients' requests
/// that change what the guard does (pause, resume, subscribing, a reload) are posted into the same
/// inbox, so the core sees one ordered history. Its timers and connection attempts run as child tasks
/// of the loop, and end with it.
///
/// It also keeps what the core asks to be recorded (the original levels in its custody) on disk, hands
/// presses to the action runner, tells systemd how it is doing, and, through `HoldPolicy`, decides when
/// the core holds the sink.
actor SinkGuard: Service, CustomStringConvertible {
    private enum Input: Sendable {
        case core(GuardEvent)
        case hold(HoldPolicy.Event)
        /// A client's pause or resume, answered once the guard has acted on it.
        case clientPaused(Bool, reply: CheckedContinuation<Void, Never>)
        case settled(waiter: Int)
        case pulse(PulseEvent, generation: Int)
        case connected(PulseConnection, generation: Int, server: String)
        case connectFailed(String, generation: Int)
        case reconnect
        case shutdown
        case releaseTimedOut
    }

    /// How long a shutdown waits for the server to acknowledge the restore before giving up.
    static let releaseTimeout: Duration = .seconds(3)
    /// How long a client's `pause` or `resume` waits for the guard to act on it before it is answered.
    static let settleWait: Duration = .seconds(2)

    /// As the daemon started: the socket, server and history length are not changed by a reload.
    private let configuration: Configuration
    private var policy: HoldPolicy
    private let logger: Logger
    private var core: GuardCore
    private let record: OriginalsRecord
    private let actions: ActionRunner
    private let notifier: SystemdNotifier
    private let inbox: AsyncStream<Input>
    private let post: AsyncStream<Input>.Continuation
    private var link = ServerLink()
    private var hub: SubscriberHub
    /// Child tasks for the loop to start: timers and connection attempts.
    private var work: [@Sendable () async -> Void] = []
    /// When the timer for the core's earliest wake-up fires, while one runs.
    private var wakeUpDue: ContinuousClock.Instant?
    /// Clients whose `pause` or `resume` is answered once the guard has acted on it, by number.
    private var settling: [Int: (paused: Bool, reply: CheckedContinuation<Void, Never>)] = [:]
    private var nextWaiter = 0
    private let started = ContinuousClock.now
    /// The control socket's event loop, which the actor runs on: a press reaches its subscribers'
    /// channels on the thread that writes them, without waking another thread first.
    private nonisolated let eventLoop = MultiThreadedEventLoopGroup.singleton.any()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        eventLoop.executor.asUnownedSerialExecutor()
    }

    /// A guard that starts from `record`: the levels a previous run on this socket did not give back.
    init(configuration: Configuration, logger: Logger, record: OriginalsRecord, actions: ActionRunner, notifier: SystemdNotifier) {
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
        self.policy = HoldPolicy(mode: configuration.mode)
        self.logger = logger
        self.core = GuardCore(configuration: configuration.core, remembered: remembered)
        self.record = record
        self.actions = actions
        self.notifier = notifier
        self.hub = SubscriberHub(historyCapacity: configuration.historyCapacity)
        (inbox, post) = AsyncStream.makeStream(of: Input.self)
    }

    nonisolated var description: String { "SinkGuard" }

    /// Guards until a graceful shutdown, then gives the sink back and returns.
    func run() async {
        await withGracefulShutdownHandler {
            await loop()
        } onGracefulShutdown: { [post, notifier] in
            notifier.notify("STOPPING=1")
            post.yield(.shutdown)
        }
    }

    private func loop() async {
        await withDiscardingTaskGroup { group in
            if let event = policy.decide() { feed(event) }
            connect()
            // The socket was bound before the services started: clients can connect from now on.
            notifier.notify("READY=1")
            start(&group)
            for await input in inbox {
                handle(input)
                start(&group)
            }
            group.cancelAll()
        }
        link.close()
        hub.finishAll()
        for waiter in settling.values { waiter.reply.resume() }
        settling = [:]
    }

    /// Starts the timers and connection attempts asked for since the last call.
    private func start(_ group: inout DiscardingTaskGroup) {
        for job in work { group.addTask(operation: job) }
        work = []
    }

    // MARK: - Requests from clients

    /// Queues the `subscribed` reply and the presses after `since` still in the history, then registers
    /// `queue` for live lines, all in one turn of the actor. A nil `since` means live presses only.
    func subscribe(_ queue: ClientQueue, id: RequestID?, since: UInt64?, gestures: Bool) {
        hub.subscribe(queue, id: id, since: since, gestures: gestures, lastSeq: core.lastSeq)
        post.yield(.hold(.subscribed(hub.count > 0)))
    }

    /// Each client's queue holds a whole replay and then some, so that only a client that stops reading
    /// is cut loose, never one that just resumed.
    nonisolated var clientQueueCapacity: Int {
        configuration.historyCapacity + ClientQueue.headroom
    }

    /// Forgets `queue`; only a subscriber's leaving can change the hold, so only that costs an inbox turn.
    func unsubscribe(_ queue: ClientQueue) {
        guard hub.unsubscribe(queue) else { return }
        post.yield(.hold(.subscribed(hub.count > 0)))
    }

    /// Applies a reloaded configuration: mode, actions and the core's settings take effect at once.
    func reload(_ new: Configuration) {
        actions.replace(new.actions)
        post.yield(.core(.reconfigure(new.core)))
        post.yield(.hold(.mode(new.mode)))
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
            subscribers: hub.count,
            server: link.description,
            uptimeSeconds: (ContinuousClock.now - started).seconds,
            contested: core.isContested
        )
    }

    /// Pauses or resumes guarding, in turn with everything else the core is told; returns once the guard
    /// has acted on it, so that a client's next request sees the new state and the sink where it should
    /// be: a pause once the sink has been given its level back (read back), a resume once the sink is
    /// held again. Both wait for `settleWait` at most (the server may be gone).
    nonisolated func set(paused: Bool) async {
        await withCheckedContinuation { reply in
            if case .terminated = post.yield(.clientPaused(paused, reply: reply)) { reply.resume() }
        }
    }

    // MARK: - The loop

    private func handle(_ input: Input) {
        switch input {
        case .core(let event):
            if case .wakeUp = event, let due = wakeUpDue, due <= .now { wakeUpDue = nil }
            feed(event)
        case .hold(let event):
            if let decision = policy.handle(event) { feed(decision) }
        case .clientPaused(let paused, let reply):
            if let decision = policy.handle(.clientPaused(paused)) { feed(decision) }
            if hasSettled(paused: paused) {
                reply.resume()
            } else {
                nextWaiter += 1
                settling[nextWaiter] = (paused, reply)
                schedule(.settled(waiter: nextWaiter), at: .now + Self.settleWait)
            }
        case .settled(let waiter):
            settling.removeValue(forKey: waiter)?.reply.resume()
        case .pulse(let event, let from):
            guard link.isCurrent(from) else { return }
            pulse(event)
        case .connected(let new, let from, let server):
            guard link.isCurrent(from), core.state != .stopped else { return new.close() }
            link.connected(new, server: server)
            logger.info("connected to the audio server", metadata: ["server": "\(server)"])
            feed(.connected)
        case .connectFailed(let reason, let from):
            guard link.isCurrent(from) else { return }
            let delay = link.lost()
            logger.warning("cannot reach the audio server; retrying", metadata: ["reason": "\(reason)", "in": "\(delay)"])
            schedule(.reconnect, at: .now + delay)
        case .reconnect:
            guard core.state != .stopped else { return }
            connect()
        case .shutdown:
            feed(.shutdown)
            schedule(.releaseTimedOut, at: .now + Self.releaseTimeout)
        case .releaseTimedOut:
            logger.error("the audio server did not acknowledge the restore in time")
            post.finish()
        }
        for (number, waiter) in settling where hasSettled(paused: waiter.paused) {
            settling[number] = nil
            waiter.reply.resume()
        }
        if core.state == .stopped, core.isReleased { post.finish() }
    }

    /// Whether the guard has acted on a client's pause (every sink given back) or resume (no longer
    /// looking for the sink to hold).
    private func hasSettled(paused: Bool) -> Bool {
        paused ? core.isReleased : core.state != .connecting
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
            let delay = link.lost()
            feed(.disconnected)
            schedule(.reconnect, at: .now + delay)
        }
    }

    /// Starts a connection attempt, as a child task of the loop.
    private func connect() {
        let generation = link.newAttempt()
        let post = post
        let server = configuration.server
        let fresh = PulseConnection(applicationName: "volume-guard") { event in
            post.yield(.pulse(event, generation: generation))
        }
        work.append {
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

    /// Posts `input` when `due` comes, from a child task of the loop; a cancelled wait posts nothing.
    private func schedule(_ input: Input, at due: ContinuousClock.Instant) {
        let post = post
        work.append {
            guard (try? await Task.sleep(until: due)) != nil else { return }
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
            link.connection?.requestDefaultSink { [logger] name in
                logger.debug("default sink", metadata: ["name": "\(name ?? "-")"])
                post.yield(.core(.defaultSink(name)))
            }
        case .readSink(let query, let ticket):
            link.connection?.requestSink(query) { post.yield(.core(.sinkRead(ticket, $0))) }
        case .reconnect:
            post.yield(.pulse(.disconnected(reason: "the server names no default sink to this connection"), generation: link.generation))
        case .wakeUp(let delay):
            // One timer at a time, for the earliest wake-up asked for: the core asks again, on any wake-up,
            // for whatever is still due later.
            let due = ContinuousClock.now + delay
            if let pending = wakeUpDue, pending <= due { break }
            wakeUpDue = due
            schedule(.core(.wakeUp), at: due)
        case .readSinks(let ticket):
            link.connection?.requestSinks { sinks in
                if let sinks { post.yield(.core(.sinksRead(ticket, sinks))) }
            }
        case .setVolume(let sink, let volume, let tag):
            link.connection?.setSinkVolume(index: sink, to: volume) { _ in post.yield(.core(.written(tag))) }
        case .setMute(let sink, let muted, let tag):
            link.connection?.setSinkMute(index: sink, muted: muted) { _ in post.yield(.core(.written(tag))) }
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
            noteCutLoose(hub.publish(seq: press.seq, line))
            actions.run(for: press)
        case .gesture(let gesture):
            logger.debug("gesture", metadata: ["gesture": "\(gesture.kind.rawValue)", "direction": "\(gesture.direction)"])
            noteCutLoose(hub.publishGesture(ByteBuffer(line: GestureMessage(gesture, sink: core.guarded?.name, time: WireFormat.timestamp(Date())))))
        case .stateChanged(let state):
            logger.info("state", metadata: ["state": "\(state.rawValue)"])
        case .report(let report):
            logger.log(report)
        }
    }

    /// Tells subscribers, and systemd, the guard's state and guarded sink when either changed.
    private func announceState() {
        let current = StateMessage(state: core.state, sink: core.guarded?.name)
        let (sent, cutLoose) = hub.announce(current)
        noteCutLoose(cutLoose)
        if sent { notifier.notify("STATUS=\(current.state.rawValue)\(current.sink.map { " \($0)" } ?? "")") }
    }

    /// Subscribers that stopped reading were dropped: a leaving subscriber may end the hold.
    private func noteCutLoose(_ count: Int) {
        guard count > 0 else { return }
        for _ in 0..<count { logger.notice("subscriber cut loose: it stopped reading") }
        post.yield(.hold(.subscribed(hub.count > 0)))
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
