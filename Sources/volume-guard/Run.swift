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

    @Option(help: ArgumentHelp("The volume keys' step in percent (default: learned from presses).", valueName: "percent"))
    var step: Double?

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        if let step, !(0.1...100).contains(step) {
            throw ValidationError("--step must be between 0.1 and 100 (percent)")
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
        let path = socket.path
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let core = GuardCore.Configuration(keyStep: step.map { UInt32(($0 / 100 * Double(SinkVolume.norm)).rounded()) })
        let sinkGuard = SinkGuard(configuration: Configuration(socketPath: path, server: server, core: core), logger: logger)
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
