import FoundationEssentials
import GuardSettings
import Logging
import Pairing
import ServiceLifecycle
import SystemPackage
import UnixSignals

/// The daemon: binds the control socket (or serves the one systemd passed), guards the sink, serves
/// clients, reloads on SIGHUP and gives every sink back on SIGTERM or SIGINT. `volume-guard run` calls it
/// in its own process.
public enum Daemon {
    /// Runs until a graceful shutdown. `reload` reads the configuration again (the config file, with the
    /// start's flags still on top) when SIGHUP comes; its errors are logged and the configuration in use
    /// is kept.
    public static func run(
        _ configuration: DaemonConfiguration, environment: [String: String],
        reload: @escaping @Sendable () throws -> DaemonConfiguration
    ) async throws {
        // SwiftNIO's one event loop (EventLoopExecutor.shared) does the daemon's network work and, as the
        // executor `volume-guard`'s main gives every task before the first runs, its tasks' (docs/DESIGN.md,
        // "Threads").
        let threshold = JournalLogHandler.Threshold(configuration.logLevel)
        let style = JournalLogHandler.style(environment: environment)
        LoggingSystem.bootstrap { _ in JournalLogHandler(style: style, threshold: threshold) }
        let logger = Logger(label: "volume-guard")
        logger.debug("open files limit", metadata: ["limit": "\(OpenFileLimit.raiseToHard().map(String.init) ?? "unknown")"])
        // Trapped before anything else: SIGHUP's default action would end the daemon, and SIGTERM's or
        // SIGINT's would end it by the signal while it starts (its socket bound, its stale file left), before
        // the service group is there to shut it down.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let stops = await UnixSignalsSequence(trapping: .sigterm, .sigint)

        // Under socket activation the socket served is systemd's, wherever its unit put it: its path names
        // the daemon in the log and keys the record of original levels, as a bound socket's path does.
        let inherited = try InheritedSocket.take(environment: environment)
        let path = inherited?.path ?? configuration.socketPath
        if let inherited {
            logger.info("socket activation: serving the socket systemd passed", metadata: ["socket": "\(inherited.path)"])
            if inherited.path != configuration.socketPath {
                logger.notice("the configured socket is not used", metadata: ["configured": "\(configuration.socketPath)"])
            }
        } else {
            try FileManager.default.createDirectory(
                atPath: FilePath(path).removingLastComponent().string, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        }
        let notifier = SystemdNotifier(environment: environment)
        let actions = ActionRunner(actions: configuration.actions, logger: logger)
        let record = OriginalsRecord(path: OriginalsRecord.standardPath(environment: environment, socketPath: path))
        logger.debug("record of original levels", metadata: ["path": "\(record.path)"])
        // Read before the listener serves a request; a file that cannot be read leaves none paired.
        let pairings = PairedClients(file: PairingsFile(path: PairingsFile.standardPath(environment: environment)), logger: logger)
        _ = try? await pairings.reload()
        let httpGauge = configuration.http.map { HTTPGauge(pairings: pairings, tokensRequired: $0.tokensRequired) }
        let guardService = GuardService(
            configuration: configuration, logger: logger, record: record, actions: actions, notifier: notifier, httpGauge: httpGauge
        )
        let control =
            if let inherited {
                try await ControlServer(inherited: inherited, guardService: guardService, pairings: pairings, logger: logger)
            } else {
                try await ControlServer(path: path, guardService: guardService, pairings: pairings, logger: logger)
            }
        var listeners: [any Service] = [control]
        if let settings = configuration.http, let httpGauge {
            listeners.append(try await HTTPListener(settings: settings, gauge: httpGauge, clients: pairings, guardService: guardService, logger: logger))
        }
        let reloader = ConfigReloader(
            hangups: hangups, load: reload, initial: configuration, guardService: guardService, pairings: pairings, threshold: threshold,
            notifier: notifier, logger: logger
        )
        // Shut down in reverse: stop reloading; give the sink back, telling subscribers and writing them
        // every line before closing their connections (event streams too); close the listeners; then stop
        // actions.
        let services: [any Service] = [actions] + listeners + [guardService, reloader]
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map {
                    .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup)
                },
                logger: logger
            ))
        try await withThrowingDiscardingTaskGroup { tasks in
            // Each SIGTERM or SIGINT shuts the group down gracefully, one that came while the daemon started
            // too: the group remembers a request made before it runs.
            tasks.addTask {
                for await _ in stops { await group.triggerGracefulShutdown() }
            }
            try await group.run()
            tasks.cancelAll()
        }
    }
}
