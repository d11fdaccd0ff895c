import GuardSettings
import Logging
import PulseBridge
import ServiceLifecycle
import VolumeGuardCore

/// Owns both sources of presses (the guard core with its audio server connection, and the input source
/// with its device nodes), the press pipeline they feed, and the subscribers.
///
/// It runs on libpulse's mainloop (`PulseMainloop`), as its executor, and so do the connection and the
/// device nodes' watches: a server event, a reply or a key event reaches the guard inside the mainloop's
/// callback, in order, and the guard feeds it to its machine and performs the actions it returns (reads
/// and writes go straight back to libpulse, presses through the `PressPipeline` to the `SubscriberHub`)
/// before the callback returns. Clients' requests (pause, resume, subscribing, status, a reload) are calls
/// into the actor, so the machines see one ordered history. With `source = "input"` the core is never
/// started: no connection is made.
///
/// Its own life (connection attempts, shutdown) is decided by `GuardLifecycle`, a value it feeds what
/// happens and whose actions it performs: connection attempts run as child tasks of `run` and end with
/// it, and timers are the mainloop's. `WakeUps` keeps the one timer its machines' wake-ups share. It also keeps what the core asks to be
/// recorded (the original levels in its custody) on disk, hands presses to the action runner, tells
/// systemd how it is doing, and, through `PausePolicy`, decides when the core is paused.
actor GuardService: Service, CustomStringConvertible {
    /// As the daemon started: the socket, server, history length and sources are not changed by a reload.
    let configuration: DaemonConfiguration
    var policy: PausePolicy
    let logger: Logger
    var core: GuardCore
    var lifecycle = GuardLifecycle()
    /// The one timer for every machine's wake-ups.
    var wakeUps = WakeUps()
    /// Every source's presses go through it.
    var pipeline: PressPipeline
    /// The input devices, with `input` or `both`; nil with `sink`.
    var input: InputSource?
    /// The input devices' open nodes and the directory watch.
    var deviceFiles = DeviceFiles()
    /// The last status line systemd was told.
    var notifiedStatus: String?
    /// The current attempt's connection, once it has connected.
    var connection: PulseConnection?
    let record: OriginalsRecord
    let actions: ActionRunner
    let notifier: SystemdNotifier
    /// The HTTP listener's address and connections, for `status`; nil without a listener.
    let httpGauge: HTTPGauge?
    var hub: SubscriberHub
    /// Clients whose `pause` or `resume` is answered once the guard has acted on it.
    var settling = Settling()
    let started = ContinuousClock.now
    /// How many `turn`s are open: the outermost one ends with the epilogue.
    private var openTurns = 0
    /// Child tasks for `run` to start: connection attempts, and a graceful shutdown. Finished when the
    /// lifecycle ends.
    private let work: AsyncStream<@Sendable () async -> Void>
    private let spawn: AsyncStream<@Sendable () async -> Void>.Continuation
    /// libpulse's thread, where the guard and its connections run.
    nonisolated var unownedExecutor: UnownedSerialExecutor {
        PulseMainloop.shared.asUnownedSerialExecutor()
    }

    /// A guard that starts from `record`: the levels a previous run on this socket did not give back.
    init(
        configuration: DaemonConfiguration, logger: Logger, record: OriginalsRecord, actions: ActionRunner, notifier: SystemdNotifier,
        httpGauge: HTTPGauge? = nil
    ) {
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
        self.policy = PausePolicy(mode: configuration.mode)
        self.logger = logger
        self.core = GuardCore(configuration: configuration.core, remembered: remembered)
        self.pipeline = PressPipeline(thresholds: configuration.gestures)
        self.input = configuration.source.takesDevices ? InputSource(configuration: configuration.input) : nil
        self.record = record
        self.actions = actions
        self.notifier = notifier
        self.httpGauge = httpGauge
        self.hub = SubscriberHub(historyCapacity: configuration.historyCapacity)
        (work, spawn) = AsyncStream.makeStream()
    }

    nonisolated var description: String { "GuardService" }

    /// Guards until a graceful shutdown, then gives the sink back and returns. Not isolated: it only starts
    /// the child tasks the guard asks for, which run on the global executor anyway.
    nonisolated func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                await begin()
                for await job in work {
                    group.addTask(operation: job)
                }
                group.cancelAll()
            }
            await finish()
        } onGracefulShutdown: { [self] in
            notifier.notify("STOPPING=1")
            spawn.yield { await self.stop() }
        }
    }

    private func begin() {
        if let event = policy.decide() { decided(event) }
        startInput()
        if configuration.source.guardsSink { live(.start) }
        // The socket was bound before the services started: clients can connect from now on.
        notifier.notify("READY=1")
    }

    /// A graceful shutdown: the devices are let go at once, the sink given back before the guard ends.
    private func stop() {
        stopInput()
        live(.shutdown)
    }

    private func finish() {
        closeConnection()
        hub.finishAll()
        settling.answerAll()
    }

    /// The time on the core's clock.
    var now: Duration { ContinuousClock.now - started }

    // MARK: - One turn

    /// Runs `body`, the guard's handling of one thing that happened, and ends it with the same epilogue
    /// whichever machine it fed, once the outermost handling is done: a subscriber cut loose by a
    /// device's press pauses a `while-subscribed` guard as surely as one cut loose by a sink's.
    func turn(_ body: () -> Void) {
        openTurns += 1
        body()
        openTurns -= 1
        if openTurns == 0 { epilogue() }
    }

    /// What every turn ends with: subscribers and systemd told of a new state, the pause policy of the
    /// subscribers left, settled clients answered, and the end once every sink is given back.
    private func epilogue() {
        announceState()
        subscribersChanged()
        settling.answer(where: hasSettled(paused:))
        if case .stopping = lifecycle.state, core.allGivenBack { live(.givenBack) }
    }

    // MARK: - The lifecycle

    /// Tells the lifecycle `event` and performs what it decides.
    func live(_ event: GuardLifecycle.Event) {
        turn { lifecycle.handle(event, at: now).forEach(perform) }
    }

    private func perform(_ action: GuardLifecycle.Action) {
        switch action {
        case .connect(let generation): connect(generation)
        case .close: closeConnection()
        case .feed(let event): feed(event)
        case .retry(let generation, let delay): schedule(at: now + delay) { $0.live(.retryDue(generation: generation)) }
        case .setDeadline(let deadline): schedule(at: deadline) { $0.live(.deadlinePassed) }
        case .reportNotGivenBack: logger.error("the audio server did not acknowledge the restore in time")
        case .end: spawn.finish()
        }
    }

    // MARK: - Wake-ups

    /// `machine` asked to be woken after `delay`.
    func wake(_ machine: WakeUps.Machine, after delay: Duration) {
        guard !lifecycle.hasEnded, let due = wakeUps.ask(machine, after: delay, at: now) else { return }
        schedule(at: due) { $0.timerFired(due: due) }
    }

    /// Wakes the machines whose wake-up is due, in one turn.
    private func timerFired(due: Duration) {
        guard !lifecycle.hasEnded else { return }
        turn {
            let (woken, next) = wakeUps.fired(due: due, at: now)
            for machine in woken {
                switch machine {
                case .core: feed(.wakeUp)
                case .input: feedInput { input, now in input.wakeUp(at: now) }
                case .pipeline: pass(pipeline.wakeUp(at: now))
                }
            }
            if let next { schedule(at: next) { $0.timerFired(due: next) } }
        }
    }

    /// Closes the current attempt's connection: the requests it cancels complete on the mainloop's next
    /// turn, as failed, and are stale by then, as is all else the attempt still reports.
    private func closeConnection() {
        connection?.assumeIsolated { $0.close() }
        connection = nil
    }

    /// Runs `body` in the guard when `due` (on the core's clock) comes: a timer of the mainloop the guard
    /// runs on, so waiting costs no task and no other thread. (Its clock stops while the machine sleeps:
    /// across a suspend it comes due that much later.)
    func schedule(at due: Duration, _ body: @escaping @Sendable (isolated GuardService) -> Void) {
        PulseMainloop.shared.run(after: due - now) { [self] in
            assumeIsolated(body)
        }
    }

    // MARK: - The audio server

    /// A server event of attempt `generation`, inside libpulse's callback.
    private func pulse(_ event: PulseEvent, from generation: Int) {
        guard lifecycle.isCurrent(generation) else { return }
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
            live(.lost(generation: generation))
        }
    }

    /// Drops the current connection, as if the server had gone, and makes a new one: after this turn of
    /// the guard, which is still performing the core's actions.
    func dropConnection(reason: String) {
        guard case .connected(let generation, _)? = lifecycle.link else { return }
        schedule(at: now) { $0.pulse(.disconnected(reason: reason), from: generation) }
    }

    /// Starts attempt `generation`, as a child task of `run`.
    private func connect(_ generation: Int) {
        let server = configuration.server
        let fresh = PulseConnection(applicationName: "volume-guard") { [self] event in
            assumeIsolated { $0.pulse(event, from: generation) }
        }
        spawn.yield { [self] in
            do {
                try await fresh.connect(to: server)
                let info = try await fresh.serverInfo()
                await connected(fresh, generation: generation, server: "\(info.name) \(info.version)")
            } catch {
                await fresh.close()
                await connectFailed("\(error)", generation: generation)
            }
        }
    }

    private func connected(_ fresh: PulseConnection, generation: Int, server: String) {
        guard lifecycle.isCurrent(generation) else { return fresh.assumeIsolated { $0.close() } }
        connection = fresh
        logger.info("connected to the audio server", metadata: ["server": "\(server)"])
        live(.connected(generation: generation, server: server))
    }

    private func connectFailed(_ reason: String, generation: Int) {
        guard lifecycle.isCurrent(generation) else { return }
        live(.lost(generation: generation))
        // One warning for a run of failures, not one a second while the server stays away.
        let level: Logger.Level = lifecycle.failedAttempts == 1 ? .warning : .debug
        logger.log(level: level, "cannot reach the audio server; retrying", metadata: ["reason": "\(reason)"])
    }
}
