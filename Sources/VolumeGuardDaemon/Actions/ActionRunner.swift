import FoundationEssentials
import GuardProtocol
import GuardSettings
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle
import VolumeGuardCore

/// Runs the configured actions on presses and gestures, without ever holding up the guard.
///
/// `run(for:)` only decides (`StateMachine`: a trigger for an action that is still running, cooling down,
/// or beyond `concurrencyLimit` running actions is dropped with a log line rather than queued) and
/// queues; the commands run in this service's own task group. Every command runs in a session of its
/// own, with a timeout after which its whole process group gets SIGTERM, then SIGKILL a second later.
/// What it prints goes to the log: standard output at info, standard error at warning.
final class ActionRunner: Service, Sendable, CustomStringConvertible {
    static let concurrencyLimit = 4
    /// How long an action that is timed out or stopped at shutdown has between SIGTERM and SIGKILL.
    static let termGrace: Duration = .seconds(1)

    private struct Job: Sendable {
        var action: Action
        var identity: StateMachine.Identity
        var trigger: Trigger
    }

    private let state: NIOLockedValueBox<StateMachine>
    private let jobs: AsyncStream<Job>
    private let post: AsyncStream<Job>.Continuation
    private let logger: Logger

    init(actions: [Action], logger: Logger) {
        state = NIOLockedValueBox(StateMachine(actions: actions, limit: Self.concurrencyLimit))
        (jobs, post) = AsyncStream.makeStream(of: Job.self)
        self.logger = logger
    }

    var description: String { "ActionRunner" }

    /// Takes a new list of actions (a reload); commands already running go on to their end.
    func replace(_ actions: [Action]) {
        state.withLockedValue { $0.replace(actions) }
    }

    /// The configured actions for a status reply, their counts and last runs, and what a tap costs as
    /// `thresholds` make it, from the `sources` presses come from; nil when there are none.
    func report(gestures: GestureDetector.Configuration, sources: SourceSelection) -> [ActionMessage]? {
        state.withLockedValue { $0.actions.isEmpty ? nil : $0.report(gestures: gestures, sources: sources) }
    }

    /// Starts the actions `trigger` calls for, or drops them; returns at once.
    func run(for trigger: Trigger) {
        let time = WireFormat.timestamp(Date())
        let decisions = state.withLockedValue { $0.trigger(trigger, time: time, at: .now) }
        for decision in decisions {
            switch decision {
            case .start(let action, let identity):
                if case .terminated = post.yield(Job(action: action, identity: identity, trigger: trigger)) {
                    ended(identity, .failed("the daemon is stopping"))
                }
            case .drop(let action, let drop):
                var metadata: Logger.Metadata = ["action": "\(action.name)", "seq": "\(trigger.seq)"]
                // "press dropped", "tap dropped", ...: what the action was to run for.
                let what = trigger.kind.rawValue
                switch drop {
                case .running:
                    logger.notice("action still running; \(what) dropped for it", metadata: metadata)
                case .coolingDown(let remaining):
                    metadata["remaining"] = "\(Self.seconds(remaining))"
                    logger.notice("action cooling down; \(what) dropped for it", metadata: metadata)
                case .overLimit:
                    logger.notice("\(Self.concurrencyLimit) actions already running; \(what) dropped", metadata: metadata)
                }
            }
        }
    }

    /// Runs queued commands until a graceful shutdown, which stops those still running.
    func run() async {
        await cancelWhenGracefulShutdown { [self] in
            await withDiscardingTaskGroup { group in
                for await job in jobs {
                    group.addTask {
                        if let outcome = await self.execute(job) { self.ended(job.identity, outcome) }
                    }
                }
            }
        }
        post.finish()
    }

    private func ended(_ identity: StateMachine.Identity, _ outcome: StateMachine.Outcome) {
        state.withLockedValue { $0.ended(identity, outcome, at: .now) }
    }

    /// Seconds to two decimals, for the log.
    private static func seconds(_ duration: Duration) -> Double {
        (duration / .milliseconds(10)).rounded() / 100
    }

    /// Runs the job's command to its end, and logs how it went; nil when the daemon's shutdown stopped it.
    private func execute(_ job: Job) async -> StateMachine.Outcome? {
        let action = job.action
        var tagged = logger
        tagged[metadataKey: "action"] = "\(action.name)"
        tagged[metadataKey: "seq"] = "\(job.trigger.seq)"
        let logger = tagged
        logger.debug("action started", metadata: ["command": "\(action.command.joined(separator: " "))"])
        let started = ContinuousClock.now
        let outcome: StateMachine.Outcome
        do {
            outcome = try await Self.spawn(action, for: job.trigger, logger: logger)
        } catch {
            outcome = .failed("\(error)")
        }
        // The shutdown ends the command with its SIGTERM, which then reads as the command's own end: the
        // shutdown stopped it all the same.
        if Task.isCancelled {
            logger.notice("action stopped: the daemon is shutting down")
            return nil
        }
        let seconds = "\(Self.seconds(ContinuousClock.now - started))"
        switch outcome {
        case .exited(0):
            logger.debug("action done", metadata: ["seconds": "\(seconds)"])
        case .exited(let status):
            logger.warning("action failed", metadata: ["status": "\(status)", "seconds": "\(seconds)"])
        case .signaled(let signal):
            logger.warning("action was killed by a signal", metadata: ["signal": "\(signal)", "seconds": "\(seconds)"])
        case .timedOut:
            logger.warning("action timed out; its processes were stopped", metadata: ["timeout": "\(action.timeout)"])
        case .failed(let error):
            logger.warning("action could not run", metadata: ["error": "\(error)"])
        }
        return outcome
    }

    /// Runs the command to its end, logging its output line by line, on SwiftNIO's event loop: its pipes
    /// are read there, and its timeout is the loop's timer (a task's sleep would wake libdispatch's pool).
    /// Timed out, or cancelled, it sends the command's process group SIGTERM, and SIGKILL after `termGrace`.
    private static func spawn(_ action: Action, for trigger: Trigger, logger: Logger) async throws -> StateMachine.Outcome {
        let environment = ProcessInfo.processInfo.environment.merging(Action.environment(for: trigger)) { $1 }
        let child = try ChildProcess(action.command, environment: environment)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let timedOut = NIOLockedValueBox(false)
        let stop: @Sendable () -> Void = {
            child.signalGroup(SIGTERM)
            loop.scheduleTask(in: TimeAmount(termGrace)) { child.signalGroup(SIGKILL) }
        }
        let timeout = loop.scheduleTask(in: TimeAmount(action.timeout)) {
            timedOut.withLockedValue { $0 = true }
            stop()
        }
        let end = await withTaskCancellationHandler {
            async let output: Void = log(child.output, on: loop, to: logger, at: .info)
            async let errors: Void = log(child.errors, on: loop, to: logger, at: .warning)
            _ = await (output, errors)
            return await child.end()
        } onCancel: {
            stop()
        }
        timeout.cancel()
        return timedOut.withLockedValue { $0 } ? .timedOut : end
    }

    /// Logs what the command writes to `descriptor`, line by line, until its end; the descriptor is closed.
    private static func log(_ descriptor: Int32, on loop: any EventLoop, to logger: Logger, at level: Logger.Level) async {
        let pipe: NIOAsyncChannel<ByteBuffer, Never>
        do {
            pipe = try await NIOPipeBootstrap(group: loop).takingOwnershipOfDescriptor(input: descriptor) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel(wrappingChannelSynchronously: channel) }
            }
        } catch {
            close(descriptor)
            logger.warning("the action's output cannot be read", metadata: ["error": "\(error)"])
            return
        }
        var lines = OutputLines()
        try? await pipe.executeThenClose { inbound, _ in
            for try await buffer in inbound {
                for line in lines.feed(buffer.readableBytesView) { logger.log(level: level, "\(line)") }
            }
        }
        if let last = lines.finish() { logger.log(level: level, "\(last)") }
    }
}
