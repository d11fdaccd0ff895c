import GuardSettings
import FoundationEssentials
import Glibc
import Logging
import NIOCore
import ServiceLifecycle
import SystemPackage
import UnixSignals
import VolumeGuardDaemon

/// The daemon, as `volume-guard run` starts it: that command reads the flags and the config file, then
/// becomes this executable (`exec`, same process) with the result in `Launch`. Run on its own, it
/// says so and exits 2; given a launch it cannot read (a `volume-guard` of another version beside it),
/// it says that and exits 1.
@main
enum VolumeGuardDaemon {
    @MainActor
    static func main() async {
        // Before anything else: the first task enqueued would start libdispatch's pool for good. One
        // loop does all the daemon's work: on one thread the guard and its clients' channels never wake
        // each other, and a many-core desktop does not get a thread per core for it.
        NIOSingletons.groupLoopCountSuggestion = 1
        let onEventLoops = EventLoopExecutor.install()
        guard let text = getenv(Launch.environmentKey).map({ String(cString: $0) }) else {
            fail("volume-guardd: start it with `volume-guard run` (see `volume-guard run --help`)", exitCode: 2)
        }
        let launch: Launch
        do {
            launch = try Launch(decoding: text)
        } catch {
            fail("volume-guardd: cannot read what volume-guard run handed over (are both from the same build?): \(error)", exitCode: 1)
        }
        // Actions inherit the environment; the launch is nothing of theirs.
        unsetenv(Launch.environmentKey)
        do {
            try await run(launch, onEventLoops: onEventLoops)
        } catch {
            fail("volume-guard: \(error)", exitCode: 1)
        }
    }

    private static func fail(_ message: String, exitCode: Int32) -> Never {
        _ = try? FileDescriptor.standardError.writeAll((message + "\n").utf8)
        exit(exitCode)
    }

    private static func run(_ launch: Launch, onEventLoops: Bool) async throws {
        let environment = ProcessInfo.processInfo.environment
        let configuration = launch.configuration(environment: environment)
        // Read again on SIGHUP: the file may have changed, the flags have not.
        let reread = FileRereader(command: launch.rereadFile)
        let load: @Sendable () async throws -> Configuration = {
            launch.configuration(file: try await reread.read(), environment: environment)
        }

        let threshold = JournalLogHandler.Threshold(configuration.logLevel)
        let style = JournalLogHandler.style(environment: environment)
        LoggingSystem.bootstrap { _ in JournalLogHandler(style: style, threshold: threshold) }
        let logger = Logger(label: "volume-guard")
        if !onEventLoops {
            logger.notice("tasks run on libdispatch's pool, which wakes the daemon every second: its hook was taken")
        }
        logger.debug("open files limit", metadata: ["limit": "\(OpenFileLimit.raiseToHard().map(String.init) ?? "unknown")"])
        // Trapped before anything else: SIGHUP's default action would end the daemon.
        let hangups = await UnixSignalsSequence(trapping: .sighup)

        let path = configuration.socketPath
        try FileManager.default.createDirectory(
            atPath: FilePath(path).removingLastComponent().string, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let notifier = SystemdNotifier(environment: environment)
        let actions = ActionRunner(actions: configuration.actions, logger: logger)
        let record = OriginalsRecord(path: OriginalsRecord.standardPath(environment: environment, socketPath: path))
        logger.debug("record of original levels", metadata: ["path": "\(record.path)"])
        let sinkGuard = SinkGuard(configuration: configuration, logger: logger, record: record, actions: actions, notifier: notifier)
        let control: ControlServer
        do {
            control = try await ControlServer(path: path, sinkGuard: sinkGuard, logger: logger)
        } catch let error as ControlServer.StartError {
            logger.critical("\(error)")
            exit(1)
        }
        let reloader = ConfigReloader(
            hangups: hangups, load: load, initial: configuration, sinkGuard: sinkGuard, threshold: threshold, notifier: notifier,
            logger: logger
        )
        // Shut down in reverse: stop reloading, close the socket, give the sink back, then stop actions.
        let services: [any Service] = [actions, sinkGuard, control, reloader]
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services.map {
                .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup)
            },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ))
        // Once started, keep only the code that runs resident (see `MappedCode.shed`). On the main actor,
        // which nothing else uses once `main` waits: libdispatch gives it a thread that may block.
        Task { @MainActor in
            try await Task.sleep(for: .seconds(1), clock: .eventLoop)
            let dropped = MappedCode.shed()
            logger.debug("start-up pages shed", metadata: ["mappings": "\(dropped)"])
        }
        try await group.run()
    }
}
