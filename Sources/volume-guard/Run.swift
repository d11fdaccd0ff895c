import ArgumentParser
import Foundation
import GuardCore
import Logging
import ServiceLifecycle
import UnixSignals
import VolumeGuard

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the daemon: guard the default sink and serve the control socket.",
        discussion: """
            Every option can also be set in the config file ($XDG_CONFIG_HOME/volume-guard/config.toml, or \
            --config); a flag wins over the file. A mistake in the file exits 2, naming its line and key.
            SIGTERM or SIGINT gives the sink its original volume and mute back, removes the socket and exits 0. \
            SIGHUP reloads the config file (a file with a mistake is refused and the configuration in use kept).
            """
    )

    @OptionGroup var socket: SocketOptions

    @Option(help: ArgumentHelp("The audio server, in libpulse's syntax (default: PULSE_SERVER, then the session's).", valueName: "address"))
    var server: String?

    @Option(help: ArgumentHelp(
        "Guard only the sink with this name or shell pattern (e.g. 'bluez_output.*'), waiting for it while absent; \(Options.defaultSinkName) follows the default sink (the default).",
        valueName: "name"
    ))
    var sink: String?

    @Flag(inversion: .prefixedNo, help: "Whether mute changes are presses and put back (default), or pass through.")
    var guardMute: Bool?

    @Option(help: ArgumentHelp("The volume keys' step in percent (default: learned from presses).", valueName: "percent"))
    var step: Double?

    @Option(help: ArgumentHelp("How far inside 0 % and 100 % the sink is held, in percent (default: one raw unit, 0.0015 %).", valueName: "percent"))
    var clampMargin: Double?

    @Option(help: ArgumentHelp("How many of the latest presses are kept for clients that resume with `since` (default \(Configuration.defaultHistoryCapacity)).", valueName: "presses"))
    var history: Int?

    @Option(help: "always (the default), or while-subscribed: guard only while a client is subscribed.")
    var mode: GuardMode?

    @Option(help: ArgumentHelp("Gestures: the longest interval between a held key's repeats (default \(Self.defaultMilliseconds(\.repeatPeriod))).", valueName: "ms"))
    var repeatPeriod: Int?

    @Option(help: ArgumentHelp("Gestures: the longest delay before a held key's first repeat (default \(Self.defaultMilliseconds(\.repeatDelay))).", valueName: "ms"))
    var repeatDelay: Int?

    @Option(help: ArgumentHelp("Gestures: the longest gap between the two presses of a double press (default \(Self.defaultMilliseconds(\.doubleWindow))).", valueName: "ms"))
    var doubleWindow: Int?

    @Option(help: "trace, debug, info (the default), notice, warning, error or critical.")
    var logLevel: Logger.Level?

    /// A gesture threshold's default, in milliseconds, as the help shows it.
    static func defaultMilliseconds(_ threshold: KeyPath<GestureDetector.Configuration, Duration>) -> Int {
        let (seconds, attoseconds) = GestureDetector.Configuration()[keyPath: threshold].components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    func validate() throws {
        let problems: [(String, String?)] = [
            ("--step", step.flatMap(Options.problem(step:))),
            ("--clamp-margin", clampMargin.flatMap(Options.problem(clampMargin:))),
            ("--history", history.flatMap(Options.problem(history:))),
            ("--socket", socket.socket.flatMap(Options.problem(text:))),
            ("--server", server.flatMap(Options.problem(text:))),
            ("--sink", sink.flatMap(Options.problem(text:))),
            ("--repeat-period", repeatPeriod.flatMap(Options.problem(milliseconds:))),
            ("--repeat-delay", repeatDelay.flatMap(Options.problem(milliseconds:))),
            ("--double-window", doubleWindow.flatMap(Options.problem(milliseconds:))),
        ]
        if let (flag, problem) = problems.first(where: { $0.1 != nil }), let problem {
            throw ValidationError("\(flag) \(problem)")
        }
    }

    /// What the command line sets; `VOLUME_GUARD_SOCKET` stands for `--socket`.
    private var flags: Options {
        Options(
            sink: sink, guardMute: guardMute, step: step, clampMargin: clampMargin, history: history, socket: socket.given,
            server: server, logLevel: logLevel, mode: mode, repeatPeriod: repeatPeriod, repeatDelay: repeatDelay,
            doubleWindow: doubleWindow
        )
    }

    func run() async throws {
        let environment = socket.environment
        let (file, flags, required) = (socket.file, flags, socket.config != nil)
        // Read again on SIGHUP: the file may have changed, the flags have not.
        let load: @Sendable () throws(ConfigError) -> Configuration = {
            Configuration(try file.read(required: required).overridden(by: flags), environment: environment)
        }
        let configuration = try exitingOnMistake(load)

        let threshold = JournalLogHandler.Threshold(configuration.logLevel)
        let style = JournalLogHandler.style(environment: environment)
        LoggingSystem.bootstrap { _ in JournalLogHandler(style: style, threshold: threshold) }
        let logger = Logger(label: "volume-guard")
        logger.debug("open files limit", metadata: ["limit": "\(OpenFileLimit.raiseToHard().map(String.init) ?? "unknown")"])
        // Trapped before anything else: SIGHUP's default action would end the daemon.
        let hangups = await UnixSignalsSequence(trapping: .sighup)

        let path = configuration.socketPath
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
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
            throw ExitCode.failure
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
        try await group.run()
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension GuardMode: ExpressibleByArgument {}
