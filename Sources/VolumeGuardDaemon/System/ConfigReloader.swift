import Glibc
import GuardSettings
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnixSignals

/// Reloads the configuration, and the HTTP listener's pairings, on SIGHUP (`systemctl --user reload
/// volume-guard`).
///
/// A configuration that cannot be loaded (a mistake in the file) is refused with a log line, and the one
/// in use stays. Otherwise everything that can change at run time takes effect at once: sink selection,
/// key step, mute guarding, clamp margin, gesture thresholds, mode, actions and log level. The socket, server and history
/// length take effect at the next start; a change to them is logged as needing a restart. systemd is told
/// `RELOADING=1` and then `READY=1` around each reload.
///
/// The file is read on NIO's thread pool, never on the event loop that serves the clients and SIGTERM: a
/// file on a hung network home blocks only the read, and a shutdown stops waiting for it.
struct ConfigReloader: Service, CustomStringConvertible {
    private let hangups: UnixSignalsSequence
    private let load: @Sendable () throws -> DaemonConfiguration
    private let initial: DaemonConfiguration
    private let guardService: GuardService
    private let pairings: PairedClients
    private let threshold: JournalLogHandler.Threshold
    private let notifier: SystemdNotifier
    private let logger: Logger

    /// `hangups` must already trap SIGHUP (made before the daemon reports ready, as its default action
    /// ends the process); `load` reads the config file again and layers the start's flags over it.
    init(
        hangups: UnixSignalsSequence, load: @escaping @Sendable () throws -> DaemonConfiguration, initial: DaemonConfiguration,
        guardService: GuardService, pairings: PairedClients, threshold: JournalLogHandler.Threshold, notifier: SystemdNotifier, logger: Logger
    ) {
        self.pairings = pairings
        self.hangups = hangups
        self.load = load
        self.initial = initial
        self.guardService = guardService
        self.threshold = threshold
        self.notifier = notifier
        self.logger = logger
    }

    var description: String { "ConfigReloader" }

    func run() async {
        await cancelWhenGracefulShutdown { [self] in
            var current = initial
            for await _ in hangups {
                current = await reload(from: current)
            }
        }
    }

    /// The configuration in use after a reload.
    private func reload(from current: DaemonConfiguration) async -> DaemonConfiguration {
        notifier.notify("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
        defer { notifier.notify("READY=1") }
        // The pairings whatever becomes of the configuration: their file is the commands' own.
        _ = try? await pairings.reload()
        var new: DaemonConfiguration
        do {
            new = try await Self.offTheEventLoop(load)
        } catch is CancellationError {
            return current
        } catch {
            logger.error("the new configuration is refused; keeping the one in use", metadata: ["error": "\(error)"])
            return current
        }
        for setting in new.restartOnlyChanges(from: current) {
            logger.warning("\(setting) needs a restart to change; keeping the current one until then")
        }
        new.socketPath = current.socketPath
        new.server = current.server
        new.historyCapacity = current.historyCapacity
        threshold.value = new.logLevel
        await guardService.reload(new)
        logger.info("configuration reloaded", metadata: ["mode": "\(new.mode.rawValue)", "actions": "\(new.actions.count)"])
        return new
    }

    /// `body`'s result, run on NIO's thread pool. A cancellation ends the wait at once, not `body`: a read
    /// stuck in the kernel stays stuck on its pool thread, and its result is dropped if it ever comes.
    private static func offTheEventLoop<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let answer = loop.makePromise(of: Result.self)
        return try await withTaskCancellationHandler {
            NIOThreadPool.singleton.runIfActive(eventLoop: loop, body).cascade(to: answer)
            return try await answer.futureResult.get()
        } onCancel: {
            // The first to complete `answer` wins; the other completion is ignored.
            answer.fail(CancellationError())
        }
    }

    /// CLOCK_MONOTONIC in microseconds, as systemd wants it with `RELOADING=1`.
    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}
