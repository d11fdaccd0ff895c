import Foundation
import GuardCore
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
public actor SinkGuard: Service, CustomStringConvertible {
    private enum Input: Sendable {
        case core(GuardEvent)
        case pulse(PulseEvent, generation: Int)
        case connected(PulseConnection, generation: Int, server: String)
        case connectFailed(String, generation: Int)
        case reconnect
        case releaseTimedOut
    }

    /// Reconnect attempts start fast and back off to this.
    static let maximumBackoff: Duration = .seconds(1)
    /// How long a shutdown waits for the server to acknowledge the restore before giving up.
    static let releaseTimeout: Duration = .seconds(3)

    private let configuration: Configuration
    private let logger: Logger
    private var core: GuardCore
    private let inbox: AsyncStream<Input>
    private let post: AsyncStream<Input>.Continuation
    private var connection: PulseConnection?
    /// Counts connections, so that events of an old one are told from the current one's.
    private var generation = 0
    private var backoff: Duration = .milliseconds(50)
    private var serverDescription: String?
    private var subscribers: [ObjectIdentifier: ClientQueue] = [:]
    private let started = ContinuousClock.now

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.core = GuardCore(configuration: configuration.core)
        (inbox, post) = AsyncStream.makeStream(of: Input.self)
    }

    public nonisolated var description: String { "SinkGuard" }

    /// Guards until a graceful shutdown, then gives the sink back and returns.
    public func run() async {
        await withGracefulShutdownHandler {
            await loop()
        } onGracefulShutdown: { [post] in
            post.yield(.core(.shutdown))
            Task {
                try? await Task.sleep(for: Self.releaseTimeout)
                post.yield(.releaseTimedOut)
            }
        }
    }

    private func loop() async {
        connect()
        for await input in inbox {
            handle(input)
        }
        connection?.close()
        connection = nil
        for queue in subscribers.values { queue.finish() }
        subscribers = [:]
    }

    // MARK: - Requests from clients

    /// Registers `queue` for presses and queues the `subscribed` reply, ahead of any press.
    func subscribe(_ queue: ClientQueue, id: RequestID?) {
        queue.send(ByteBuffer(bytes: WireFormat.line(SubscribedMessage(id: id, lastSeq: core.lastSeq))))
        subscribers[ObjectIdentifier(queue)] = queue
    }

    func unsubscribe(_ queue: ClientQueue) {
        subscribers[ObjectIdentifier(queue)] = nil
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
            uptimeSeconds: (ContinuousClock.now - started).seconds
        )
    }

    /// Pauses or resumes guarding, in turn with everything else the core is told.
    nonisolated func set(paused: Bool) {
        post.yield(.core(paused ? .pause : .resume))
    }

    // MARK: - The loop

    private func handle(_ input: Input) {
        switch input {
        case .core(let event):
            perform(core.handle(event))
        case .pulse(let event, let from):
            guard from == generation else { return }
            pulse(event)
        case .connected(let new, let from, let server):
            guard from == generation, core.state != .stopped else { return new.close() }
            connection = new
            serverDescription = server
            backoff = .milliseconds(50)
            logger.info("connected to the audio server", metadata: ["server": "\(server)"])
            perform(core.handle(.connected))
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
        }
        if core.state == .stopped, core.isReleased { post.finish() }
    }

    private func pulse(_ event: PulseEvent) {
        switch event {
        case .sinkChanged(let index): perform(core.handle(.sinkChanged(index: index)))
        case .sinkRemoved(let index): perform(core.handle(.sinkRemoved(index: index)))
        case .serverChanged: perform(core.handle(.serverChanged))
        case .sinkAdded: break
        case .disconnected(let reason):
            logger.warning("lost the audio server", metadata: ["reason": "\(reason)"])
            connection?.close()
            connection = nil
            serverDescription = nil
            perform(core.handle(.disconnected))
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
        let post = post
        Task {
            try? await Task.sleep(for: delay)
            post.yield(.reconnect)
        }
    }

    // MARK: - Performing the core's actions

    private func perform(_ actions: [GuardAction]) {
        for action in actions {
            perform(action)
        }
    }

    private func perform(_ action: GuardAction) {
        let post = post
        switch action {
        case .readDefaultSink:
            connection?.requestServerInfo { info in
                if let info { post.yield(.core(.defaultSink(info.defaultSink))) }
            }
        case .readSink(let query, let ticket):
            connection?.requestSink(query) { post.yield(.core(.sinkRead(ticket, $0))) }
        case .setVolume(let sink, let volume, let tag):
            connection?.setSinkVolume(index: sink, to: volume) { post.yield(.core(.written(tag, succeeded: $0))) }
        case .setMute(let sink, let muted, let tag):
            connection?.setSinkMute(index: sink, muted: muted) { post.yield(.core(.written(tag, succeeded: $0))) }
        case .publish(let press):
            logger.debug("press", metadata: ["seq": "\(press.seq)", "direction": "\(press.direction)", "count": "\(press.count)"])
            broadcast(PressMessage(press, time: WireFormat.timestamp(Date())))
        case .stateChanged(let state):
            logger.info("state", metadata: ["state": "\(state.rawValue)"])
            broadcast(StateMessage(state: state, sink: core.guarded?.name))
        case .report(let report):
            log(report)
        }
    }

    /// Queues one encoded line for every subscriber; one that cannot take it is dropped.
    private func broadcast(_ message: some Encodable) {
        let line = ByteBuffer(bytes: WireFormat.line(message))
        for (key, queue) in subscribers where !queue.send(line) {
            subscribers[key] = nil
            logger.notice("subscriber cut loose: it stopped reading")
        }
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
        case .sinkLost(let sink):
            logger.notice("guarded sink went away", metadata: ["sink": "\(sink)"])
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
