import ArgumentParser
import ClientCommands
import FoundationEssentials
import GuardSettings
import Logging
import VolumeGuardCore
import VolumeGuardDaemon

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the daemon: guard the default sink and serve the control socket.",
        discussion: """
            Every option can also be set in the config file ($XDG_CONFIG_HOME/volume-guard/config.toml, or \
            --config); a flag wins over the file. A mistake in the file exits 2, naming its line and key.
            SIGTERM or SIGINT gives the sink its original volume and mute back, removes the socket and exits 0. \
            SIGHUP reloads the config file (a file with a mistake is refused and the configuration in use kept).
            Started by systemd's volume-guard.socket (socket activation: LISTEN_FDS and LISTEN_PID), it serves \
            the socket systemd passed instead of binding one, and leaves that file to systemd at exit.
            """
    )

    @OptionGroup var socket: SocketOptions

    @Option(help: ArgumentHelp("The audio server, in libpulse's syntax (default: PULSE_SERVER, then the session's).", valueName: "address"))
    var server: String?

    @Option(
        help: ArgumentHelp(
            "Guard only the sink with this name or shell pattern (e.g. 'bluez_output.*'), waiting for it while absent; \(SinkSelection.defaultSinkName) follows the default sink (the default).",
            valueName: "name"
        ))
    var sink: String?

    @Flag(inversion: .prefixedNo, help: "Whether mute changes are presses and put back (default), or pass through.")
    var guardMute: Bool?

    @Option(help: ArgumentHelp("The volume keys' step in percent (default: learned from presses).", valueName: "percent"))
    var step: Double?

    @Option(help: ArgumentHelp("How far inside 0 % and 100 % the sink is held, in percent (default: one raw unit, 0.0015 %).", valueName: "percent"))
    var clampMargin: Double?

    @Option(
        help: ArgumentHelp(
            "How many of the latest presses are kept for clients that resume with `since` (default \(DaemonConfiguration.defaultHistoryCapacity)).",
            valueName: "presses"))
    var history: Int?

    @Option(help: "always (the default), or while-subscribed: guard only while a client is subscribed.")
    var mode: GuardMode?

    @Option(
        help: ArgumentHelp(
            "Gestures: the longest interval between a held key's repeats (default \(Self.defaultMilliseconds(\.repeatPeriod))).", valueName: "ms"))
    var repeatPeriod: Int?

    @Option(
        help: ArgumentHelp(
            "Gestures: the longest delay before a held key's first repeat (default \(Self.defaultMilliseconds(\.repeatDelay))).", valueName: "ms"))
    var repeatDelay: Int?

    @Option(
        help: ArgumentHelp(
            "Gestures: the longest gap between the two presses of a double press (default \(Self.defaultMilliseconds(\.doubleWindow))).", valueName: "ms"))
    var doubleWindow: Int?

    @Option(
        help: ArgumentHelp(
            "Serve presses over HTTP as Server-Sent Events at this address: a port (on loopback), or an IP address and port such as 127.0.0.1:8370. Off by default.",
            valueName: "address"
        ))
    var http: String?

    @Option(
        help: ArgumentHelp(
            "A web page origin that the HTTP listener serves and lets pause and resume, e.g. http://127.0.0.1:8000; repeat for more.", valueName: "origin"))
    var httpOrigins: [String] = []

    @Option(
        help: ArgumentHelp(
            "Where presses come from: sink (the default: the default sink's volume changes), input (the devices named with --device; no audio server needed) or both.",
            valueName: "source"))
    var source: SourceSelection?

    @OptionGroup var input: DeviceOptions

    @Option(
        help: ArgumentHelp(
            "Gestures: how long a device's key stays down before it is a hold (default \(Self.defaultMilliseconds(\.holdDelay))).", valueName: "ms"))
    var holdDelay: Int?

    @Option(help: "trace, debug, info (the default), notice, warning, error or critical.")
    var logLevel: Logger.Level?

    /// A gesture threshold's default, in milliseconds, as the help shows it.
    static func defaultMilliseconds(_ threshold: KeyPath<GestureDetector.Thresholds, Duration>) -> Int {
        let (seconds, attoseconds) = GestureDetector.Thresholds()[keyPath: threshold].components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    func validate() throws {
        if let (key, problem) = flags.problems.first { throw ValidationError("--\(key) \(problem)") }
    }

    /// What the command line sets; `VOLUME_GUARD_SOCKET` stands for `--socket`.
    private var flags: Options {
        Options(
            sink: sink, guardMute: guardMute, step: step, clampMargin: clampMargin, history: history, socket: socket.given,
            server: server, logLevel: logLevel, mode: mode, repeatPeriod: repeatPeriod, repeatDelay: repeatDelay,
            doubleWindow: doubleWindow, http: http, httpOrigins: httpOrigins.isEmpty ? nil : httpOrigins, source: source,
            devices: input.devices, keys: input.keys, holdDelay: holdDelay
        )
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let flags = flags
        let file = socket.configFile.file
        let configuration = DaemonConfiguration(try socket.configFile.options().overridden(by: flags), environment: environment)
        do {
            // A reload reads the file again with the same parser; the flags still win over it.
            try await Daemon.run(configuration, environment: environment) {
                DaemonConfiguration(try file.read().overridden(by: flags), environment: environment)
            }
        } catch {
            printError("volume-guard: \(error)")
            throw ExitCode.failure
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension GuardMode: ExpressibleByArgument {}
extension SourceSelection: ExpressibleByArgument {}
