import FoundationEssentials
import GuardProtocol
import GuardSettings
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import Subprocess
import SystemPackage
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
            outcome = try await withThrowingTaskGroup(of: StateMachine.Outcome.self) { group in
                group.addTask {
                    switch try await Self.spawn(action, for: job.trigger, logger: logger) {
                    case .exited(let status): .exited(status)
                    case .signaled(let signal): .signaled(signal)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: action.timeout)
                    return .timedOut
                }
                // Leaving the group cancels the loser: a command that timed out is torn down with it.
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch is CancellationError {
            logger.notice("action stopped: the daemon is shutting down")
            return nil
        } catch {
            outcome = .failed("\(error)")
        }
        // The shutdown's SIGTERM can end the command before the cancellation reaches the group, which then
        // returns the signal as the command's own end (seen under qemu-user): the shutdown stopped it all the same.
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

    /// Runs the command to its end, logging its output line by line. Cancelled, it sends its process
    /// group SIGTERM, and SIGKILL after `termGrace`.
    private static func spawn(_ action: Action, for trigger: Trigger, logger: Logger) async throws -> TerminationStatus {
        var options = PlatformOptions()
        options.createSession = true
        options.teardownSequence = [.gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: termGrace)]
        let program = action.command[0]
        var variables: [Environment.Key: String?] = [:]
        for (name, value) in Action.environment(for: trigger) { variables[Environment.Key(stringLiteral: name)] = value }
        let result = try await Subprocess.run(
            program.contains("/") ? .path(FilePath(program)) : .name(program),
            arguments: Arguments(Array(action.command.dropFirst())),
            environment: .inherit.updating(variables),
            platformOptions: options,
            input: .none, output: .sequence, error: .sequence
        ) { execution in
            async let output: Void = log(execution.standardOutput, to: logger, at: .info)
            async let errors: Void = log(execution.standardError, to: logger, at: .warning)
            _ = try await (output, errors)
        }
        return result.terminationStatus
    }

    private static func log(_ output: SubprocessOutputSequence, to logger: Logger, at level: Logger.Level) async throws {
        var lines = OutputLines()
        for try await buffer in output {
            for line in buffer.withUnsafeBytes({ lines.feed($0) }) { logger.log(level: level, "\(line)") }
        }
        if let last = lines.finish() { logger.log(level: level, "\(last)") }
    }
}
