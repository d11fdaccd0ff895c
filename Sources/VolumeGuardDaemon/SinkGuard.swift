import GuardSettings
import VolumeGuardCore
import Logging
import PulseBridge
import ServiceLifecycle

/// Owns the guard core, the audio server connection and the subscribers.
///
/// It runs on libpulse's mainloop (`PulseMainloop`), as its executor, and so does the connection: a
/// server event or a reply reaches the guard inside libpulse's callback, in libpulse's order, and the
/// guard feeds it to the core and performs the actions it returns (reads and writes go straight back
/// to libpulse, presses to the `SubscriberHub`) before the callback returns; only a reconnect and the
/// timers wait for a later turn. A press costs no hop between threads until its line is handed to the
/// subscribers' event loop. Clients' requests (pause, resume, subscribing, status, a reload) are calls
/// into the actor, so the core sees one ordered history. Its connection attempts run as child tasks of
/// `run`, and end with it; its timers are the mainloop's, and run nothing once it has ended.
///
/// It also keeps what the core asks to be recorded (the original levels in its custody) on disk, hands
/// presses to the action runner, tells systemd how it is doing, and, through `HoldPolicy`, decides when
/// the core holds the sink.
actor SinkGuard: Service, CustomStringConvertible {
    /// How long a shutdown waits for the server to acknowledge the restore before giving up.
    static let releaseTimeout: Duration = .seconds(3)

    /// As the daemon started: the socket, server and history length are not changed by a reload.
    let configuration: Configuration
    var policy: HoldPolicy
    let logger: Logger
    var core: GuardCore
    let record: OriginalsRecord
    let actions: ActionRunner
    let notifier: SystemdNotifier
    /// The HTTP listener's address and connections, for `status`; nil without a listener.
    let httpGauge: HTTPGauge?
    var link = ServerLink()
    var hub: SubscriberHub
    /// Clients whose `pause` or `resume` is answered once the guard has acted on it.
    var settling = Settling()
    /// When the timer for the core's earliest wake-up fires, while one runs.
    var wakeUpDue: ContinuousClock.Instant?
    /// Subscribers were cut loose while actions were performed: the hold may change once they are done.
    var cutLoose = false
    let started = ContinuousClock.now
    /// The guard has stopped: no child task starts any more, and no timer runs.
    private(set) var ended = false
    /// Child tasks for `run` to start: connection attempts, and a graceful shutdown. Finished once the
    /// guard has stopped (`ended`).
    private let work: AsyncStream<@Sendable () async -> Void>
    private let spawn: AsyncStream<@Sendable () async -> Void>.Continuation
    /// libpulse's thread, where the guard and its connections run.
    nonisolated var unownedExecutor: UnownedSerialExecutor {
        PulseMainloop.shared.asUnownedSerialExecutor()
    }

    /// A guard that starts from `record`: the levels a previous run on this socket did not give back.
    init(
        configuration: Configuration, logger: Logger, record: OriginalsRecord, actions: ActionRunner, notifier: SystemdNotifier,
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
        self.policy = HoldPolicy(mode: configuration.mode)
        self.logger = logger
        self.core = GuardCore(configuration: configuration.core, remembered: remembered)
        self.record = record
        self.actions = actions
        self.notifier = notifier
        self.httpGauge = httpGauge
        self.hub = SubscriberHub(historyCapacity: configuration.historyCapacity)
        (work, spawn) = AsyncStream.makeStream()
    }

    nonisolated var description: String { "SinkGuard" }

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
            spawn.yield { await self.shutdown() }
        }
    }

    private func begin() {
        if let event = policy.decide() { feed(event) }
        connect()
        // The socket was bound before the services started: clients can connect from now on.
        notifier.notify("READY=1")
    }

    private func finish() {
        link.close()
        hub.finishAll()
        settling.answerAll()
    }

    /// Gives every sink back; the guard ends once they are (or after `releaseTimeout`).
    private func shutdown() {
        feed(.shutdown)
        schedule(at: .now + Self.releaseTimeout) { sinkGuard in
            sinkGuard.logger.error("the audio server did not acknowledge the restore in time")
            sinkGuard.end()
        }
    }

    /// Ends `run`: no child task starts any more, those running are cancelled, and timers still pending
    /// run nothing.
    func end() {
        ended = true
        spawn.finish()
    }

    // MARK: - The audio server

    /// A server event of connection `generation`, inside libpulse's callback.
    private func pulse(_ event: PulseEvent, from generation: Int) {
        guard link.isCurrent(generation) else { return }
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
            schedule(at: .now + delay) { $0.reconnect() }
        }
    }

    /// Drops the connection, as if the server had gone, and makes a new one: after this turn of the guard.
    /// The core asks for it only in answer to a reply, so there is a connection to drop.
    func dropConnection(reason: String) {
        let generation = link.generation
        schedule(at: .now) { $0.pulse(.disconnected(reason: reason), from: generation) }
    }

    /// Starts a connection attempt, as a child task of `run`.
    private func connect() {
        let generation = link.newAttempt()
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

    private func connected(_ connection: PulseConnection, generation: Int, server: String) {
        guard link.isCurrent(generation), core.state != .stopped else { return connection.assumeIsolated { $0.close() } }
        link.connected(connection, server: server)
        logger.info("connected to the audio server", metadata: ["server": "\(server)"])
        feed(.connected)
    }

    private func connectFailed(_ reason: String, generation: Int) {
        guard link.isCurrent(generation) else { return }
        let delay = link.lost()
        logger.warning("cannot reach the audio server; retrying", metadata: ["reason": "\(reason)", "in": "\(delay)"])
        schedule(at: .now + delay) { $0.reconnect() }
    }

    private func reconnect() {
        guard core.state != .stopped else { return }
        connect()
    }

    /// Runs `body` in the guard when `due` comes, unless the guard has ended by then: a timer of the
    /// mainloop the guard runs on, so waiting costs no task and no other thread. (Its clock stops while
    /// the machine sleeps: across a suspend it comes due that much later.)
    func schedule(at due: ContinuousClock.Instant, _ body: @escaping @Sendable (isolated SinkGuard) -> Void) {
        PulseMainloop.shared.run(after: due - .now) { [self] in
            assumeIsolated { sinkGuard in
                guard !sinkGuard.ended else { return }
                body(sinkGuard)
            }
        }
    }
}
