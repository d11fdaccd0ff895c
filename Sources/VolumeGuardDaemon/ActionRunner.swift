import GuardSettings
import Logging
import ServiceLifecycle
import Subprocess
import Synchronization
import SystemPackage
import VolumeGuardCore

/// Runs the configured actions on presses, without ever holding up the guard.
///
/// `run(for:)` only decides and queues; the commands run in this service's own task group. Each action
/// runs once at a time, and at most `concurrencyLimit` run at all: a press for an action that is still
/// running (a camera still taking the last photo), or one beyond the limit, is dropped with a log line
/// rather than queued, so a held key cannot pile up work. Every command runs in a session of its own,
/// with a timeout after which its whole process group gets SIGTERM, then SIGKILL a second later. What it
/// prints goes to the log: standard output at info, standard error at warning.
final class ActionRunner: Service, Sendable, CustomStringConvertible {
    static let concurrencyLimit = 4
    /// How long an action that is timed out or stopped at shutdown has between SIGTERM and SIGKILL.
    static let termGrace: Duration = .seconds(1)

    private struct Job: Sendable {
        var action: Action
        var press: Press
    }

    private struct State {
        var actions: [Action]
        var running: Set<Action> = []
    }

    private let state: Mutex<State>
    private let jobs: AsyncStream<Job>
    private let post: AsyncStream<Job>.Continuation
    private let logger: Logger

    init(actions: [Action], logger: Logger) {
        state = Mutex(State(actions: actions))
        (jobs, post) = AsyncStream.makeStream(of: Job.self)
        self.logger = logger
    }

    var description: String { "ActionRunner" }

    /// Takes a new list of actions (a reload); commands already running go on to their end.
    func replace(_ actions: [Action]) {
        state.withLock { $0.actions = actions }
    }

    /// Starts the actions `press` calls for, or drops them when busy; returns at once.
    func run(for press: Press) {
        var busy: [Action] = []
        var overLimit: [Action] = []
        let started: [Action] = state.withLock { state in
            var started: [Action] = []
            for action in state.actions where action.runs(on: press) {
                if state.running.contains(action) {
                    busy.append(action)
                } else if state.running.count >= Self.concurrencyLimit {
                    overLimit.append(action)
                } else {
                    state.running.insert(action)
                    started.append(action)
                }
            }
            return started
        }
        for action in busy {
            logger.notice("action still running; press dropped for it", metadata: ["action": "\(action.name)", "seq": "\(press.seq)"])
        }
        for action in overLimit {
            logger.notice("\(Self.concurrencyLimit) actions already running; press dropped", metadata: ["action": "\(action.name)", "seq": "\(press.seq)"])
        }
        for action in started {
            if case .terminated = post.yield(Job(action: action, press: press)) { finished(action) }
        }
    }

    /// Runs queued commands until a graceful shutdown, which stops those still running.
    func run() async {
        await cancelWhenGracefulShutdown { [self] in
            await withDiscardingTaskGroup { group in
                for await job in jobs {
                    group.addTask {
                        await self.execute(job)
                        self.finished(job.action)
                    }
                }
            }
        }
        post.finish()
    }

    private func finished(_ action: Action) {
        _ = state.withLock { $0.running.remove(action) }
    }

    private enum Outcome {
        case exited(TerminationStatus)
        case timedOut
    }

    private func execute(_ job: Job) async {
        let action = job.action
        var tagged = logger
        tagged[metadataKey: "action"] = "\(action.name)"
        tagged[metadataKey: "seq"] = "\(job.press.seq)"
        let logger = tagged
        logger.debug("action started", metadata: ["command": "\(action.command.joined(separator: " "))"])
        let started = ContinuousClock.now
        let outcome: Outcome
        do {
            outcome = try await withThrowingTaskGroup(of: Outcome.self) { group in
                group.addTask { .exited(try await Self.spawn(action, for: job.press, logger: logger)) }
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
            return
        } catch {
            logger.warning("action could not run", metadata: ["error": "\(error)"])
            return
        }
        let seconds = "\(((ContinuousClock.now - started) / .seconds(1) * 100).rounded() / 100)"
        switch outcome {
        case .exited(.exited(0)):
            logger.debug("action done", metadata: ["seconds": "\(seconds)"])
        case .exited(.exited(let status)):
            logger.warning("action failed", metadata: ["status": "\(status)", "seconds": "\(seconds)"])
        case .exited(.signaled(let signal)):
            logger.warning("action was killed by a signal", metadata: ["signal": "\(signal)", "seconds": "\(seconds)"])
        case .timedOut:
            logger.warning("action timed out; its processes were stopped", metadata: ["timeout": "\(action.timeout)"])
        }
    }

    /// Runs the command to its end, logging its output line by line. Cancelled, it sends its process
    /// group SIGTERM, and SIGKILL after `termGrace`.
    private static func spawn(_ action: Action, for press: Press, logger: Logger) async throws -> TerminationStatus {
        var options = PlatformOptions()
        options.createSession = true
        options.teardownSequence = [.gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: termGrace)]
        let program = action.command[0]
        var variables: [Environment.Key: String?] = [:]
        for (name, value) in Action.environment(for: press) { variables[Environment.Key(stringLiteral: name)] = value }
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
