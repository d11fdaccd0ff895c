import ArgumentParser
import Foundation
import GuardCore
import Logging
import ServiceLifecycle
import VolumeGuard

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the daemon: guard the default sink and serve the control socket.",
        discussion: "SIGTERM or SIGINT gives the sink its original volume and mute back, removes the socket and exits 0."
    )

    @OptionGroup var socket: SocketOptions

    @Option(help: ArgumentHelp("The audio server, in libpulse's syntax (default: PULSE_SERVER, then the session's).", valueName: "address"))
    var server: String?

    @Option(help: ArgumentHelp(
        "Guard only the sink with this name or shell pattern (e.g. 'bluez_output.*'), waiting for it while absent (default: follow the default sink).",
        valueName: "name"
    ))
    var sink: String?

    @Option(help: ArgumentHelp("The volume keys' step in percent (default: learned from presses).", valueName: "percent"))
    var step: Double?

    @Option(help: ArgumentHelp("How many of the latest presses are kept for clients that resume with `since`.", valueName: "presses"))
    var history = Configuration.defaultHistoryCapacity

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        if let step, !(0.1...100).contains(step) {
            throw ValidationError("--step must be between 0.1 and 100 (percent)")
        }
        guard Configuration.historyCapacities.contains(history) else {
            let range = Configuration.historyCapacities
            throw ValidationError("--history must be between \(range.lowerBound) and \(range.upperBound) (presses)")
        }
    }

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "volume-guard")
        logger.debug("open files limit", metadata: ["limit": "\(OpenFileLimit.raiseToHard().map(String.init) ?? "unknown")"])
        let path = socket.path
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let core = GuardCore.Configuration(
            selection: sink.map(SinkSelection.matching) ?? .defaultSink,
            keyStep: step.map { UInt32(($0 / 100 * Double(SinkVolume.norm)).rounded()) }
        )
        let sinkGuard = SinkGuard(
            configuration: Configuration(socketPath: path, server: server, core: core, historyCapacity: history), logger: logger
        )
        let control: ControlServer
        do {
            control = try await ControlServer(path: path, sinkGuard: sinkGuard, logger: logger)
        } catch let error as ControlServer.StartError {
            logger.critical("\(error)")
            throw ExitCode.failure
        }
        let services = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                .init(service: sinkGuard, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup),
                .init(service: control, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ))
        try await services.run()
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
