import GuardSettings
import Logging
import PulseBridge
import ServiceLifecycle
import VolumeGuardCore

/// The guard's shell: it does the IO that `GuardMachine` decides, and feeds the machine what happens.
///
/// It runs on libpulse's mainloop (`PulseMainloop`), as its executor, and so do the connection and the
/// device nodes' watches: a server event, a reply or a key event reaches the guard inside the mainloop's
/// callback, in order, and becomes one input of the machine. Every input takes the same turn (`handle`,
/// on the core's `MachineLoop`): the machine returns effects, the shell performs them, and what comes of
/// them (a node opened, a subscriber cut loose) is queued as the next input, never fed while the machine
/// is still in a turn.
/// Clients' requests (pause, resume, subscribing, status, a reload) are calls into the actor, so the
/// machine sees one ordered history.
///
/// It keeps the IO's own state: the connection (attempts run as child tasks of `run` and end with it),
/// the device nodes, the subscribers' queues, the replies of clients that wait for a pause to settle,
/// the record of original levels on disk, the action runner and systemd's notifications. Timers are the
/// mainloop's.
actor GuardService: Service, CustomStringConvertible {
    /// As the daemon started: the socket, server, history length and sources are not changed by a reload.
    let configuration: DaemonConfiguration
    let logger: Logger
    /// The machine, fed one input at a time (`handle`).
    private let loop: MachineLoop<GuardMachine>
    var machine: GuardMachine { loop.machine }
    /// The input devices' open nodes and the directory watch.
    var deviceFiles = DeviceFiles()
    /// The current attempt's connection, once it has connected.
    var connection: PulseConnection?
    let record: OriginalsRecord
    let actions: ActionRunner
    let notifier: SystemdNotifier
    /// The HTTP listener's address and connections, for `status`; nil without a listener.
    let httpGauge: HTTPGauge?
    /// The link to the MQTT broker; nil without one (`GuardService+Broker.swift`).
    var broker: BrokerShell?
    /// Which link is in use, and which starts next (`BrokerSuccession`).
    var brokerSuccession = BrokerSuccession()
    /// What the links' connections report, from their threads, in order.
    let brokerInbox: AsyncStream<BrokerReportedEvent>.Continuation
    private let brokerEvents: AsyncStream<BrokerReportedEvent>
    var hub: SubscriberHub
    /// The replies of clients whose `pause` or `resume` waits for the guard to act on it, by number.
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var lastWaiter = 0
    let started = ContinuousClock.now
    /// Child tasks for `run` to start: connection attempts, and a graceful shutdown. Finished when the
    /// guard ends.
    private let work: AsyncStream<@Sendable () async -> Void>
    let spawn: AsyncStream<@Sendable () async -> Void>.Continuation
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
            switch try record.load() {
            case .levels(let levels):
                remembered = levels
            case .damaged(let damage, .success(let aside)):
                logger.warning(
                    "the record of original levels \(damage), so it is not trusted; set aside, starting without it",
                    metadata: ["path": "\(record.path)", "renamed": "\(aside)"])
            case .damaged(let damage, .failure(let failure)):
                logger.warning(
                    "the record of original levels \(damage), so it is not trusted; starting without it, and it could not be set aside",
                    metadata: ["path": "\(record.path)", "error": "\(failure)"])
            }
        } catch {
            logger.warning("cannot read the record of original levels; starting without it", metadata: ["path": "\(record.path)", "error": "\(error)"])
        }
        if !remembered.isEmpty {
            logger.notice("a previous run ended without giving every sink back", metadata: ["sinks": "\(remembered.keys.sorted().joined(separator: ","))"])
        }
        self.configuration = configuration
        self.logger = logger
        self.loop = MachineLoop(GuardMachine(configuration: GuardMachine.Configuration(configuration), remembered: remembered))
        self.record = record
        self.actions = actions
        self.notifier = notifier
        self.httpGauge = httpGauge
        self.hub = SubscriberHub(historyCapacity: configuration.historyCapacity)
        (work, spawn) = AsyncStream.makeStream()
        (brokerEvents, brokerInbox) = AsyncStream.makeStream()
    }

    nonisolated var description: String { "GuardService" }

    /// Guards until a graceful shutdown, then gives the sink back and returns. Not isolated: it only starts
    /// the child tasks the guard asks for, which run on the tasks' executor (EventLoopExecutor) anyway.
    nonisolated func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                await begin()
                for await job in work {
                    group.addTask(operation: job)
                }
                group.cancelAll()
            }
            await endBroker()
            await finish()
        } onGracefulShutdown: { [self] in
            notifier.notify("STOPPING=1")
            spawn.yield { await self.handle(.shutdown) }
        }
    }

    private func begin() {
        // The socket was bound before the services started: clients can connect from now on, and systemd
        // hears of it before the first status line.
        notifier.notify("READY=1")
        handle(.start)
        // Not a child task of `run`: the link's last events (its `offline` acknowledged, its connection
        // closed) come after the guard's tasks end, while `run` stops it. On SwiftNIO's loop, as every task
        // of the daemon: an unstructured task does not inherit the preference, and the stream's `next`,
        // run on the global executor, would start libdispatch's pool, whose monitor wakes every second.
        Task(executorPreference: EventLoopExecutor.shared) { [self, brokerEvents] in
            for await reported in brokerEvents { await brokerReported(reported) }
        }
        startBroker(configuration)
    }

    private func finish() {
        brokerInbox.finish()
        closeConnection()
        hub.finishAll()
        for reply in waiters.values { reply.resume() }
        waiters = [:]
    }

    /// The time on the guard's clock.
    var now: Duration { ContinuousClock.now - started }

    // MARK: - One turn

    /// Feeds the machine `input` and performs what it returns; what comes of that is fed in turn, in
    /// order, once the machine is done with `input`.
    func handle(_ input: GuardMachine.Input) {
        loop.handle(input, at: { now }, taking: { logger.trace("input", metadata: ["input": "\($0)"]) }) { effect in
            perform(effect)
            return []
        }
        // The state, the sink or the devices present may have changed: the link tells the broker when
        // they have.
        if broker != nil { feedBroker(.state(brokerState)) }
    }

    /// Runs `body` in the guard when `due` (on the guard's clock) comes: a timer of the mainloop the guard
    /// runs on, so waiting costs no task and no other thread. (Its clock stops while the machine sleeps:
    /// across a suspend it comes due that much later.)
    func schedule(at due: Duration, _ body: @escaping @Sendable (isolated GuardService) -> Void) {
        PulseMainloop.shared.run(after: due - now) { [self] in
            assumeIsolated(body)
        }
    }

    /// Tells the machine `input` when `due` comes.
    func schedule(_ input: GuardMachine.Input, at due: Duration) {
        schedule(at: due) { $0.handle(input) }
    }
}

extension GuardMachine.Configuration {
    init(_ configuration: DaemonConfiguration) {
        self.init(
            core: configuration.core, source: configuration.source, input: configuration.input, gestures: configuration.gestureDetection,
            mode: configuration.mode)
    }
}
