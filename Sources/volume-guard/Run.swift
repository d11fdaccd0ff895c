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

    // Each flag's help is its setting's one description (`Options.settings`), which volume-guard(5) shows too.
    @OptionGroup var socket: SocketOptions

    @Option(help: .setting("server", valueName: "address"))
    var server: String?

    @Option(help: .setting("sink", valueName: "name"))
    var sink: String?

    @Flag(inversion: .prefixedNo, help: .setting("guard-mute"))
    var guardMute: Bool?

    @Option(help: .setting("step", valueName: "percent"))
    var step: Double?

    @Option(help: .setting("clamp-margin", valueName: "percent"))
    var clampMargin: Double?

    @Option(help: .setting("history", valueName: "presses"))
    var history: Int?

    @Option(help: .setting("mode"))
    var mode: GuardMode?

    @Option(help: .setting("repeat-period", valueName: "ms"))
    var repeatPeriod: Int?

    @Option(help: .setting("repeat-delay", valueName: "ms"))
    var repeatDelay: Int?

    @Option(help: .setting("double-window", valueName: "ms"))
    var doubleWindow: Int?

    @Option(help: .setting("http", valueName: "address"))
    var http: String?

    @Option(help: .setting("http-origins", valueName: "origin"))
    var httpOrigins: [String] = []

    @Flag(inversion: .prefixedNo, help: .setting("http-tokens"))
    var httpTokens: Bool?

    @Option(help: .setting("source", valueName: "source"))
    var source: SourceSelection?

    @OptionGroup var input: DeviceOptions

    @Option(help: .setting("hold-delay", valueName: "ms"))
    var holdDelay: Int?

    @Option(help: .setting("log-level"))
    var logLevel: Logger.Level?

    @OptionGroup var broker: BrokerOptions

    func validate() throws {
        if let (key, problem) = flags.problems.first { throw ValidationError("--\(key) \(problem)") }
        if let (key, problem) = flags.brokerProblem { throw ValidationError("--\(key) \(problem)") }
    }

    /// What the command line sets; `VOLUME_GUARD_SOCKET` stands for `--socket`.
    private var flags: Options {
        var options = Options(
            sink: sink, guardMute: guardMute, step: step, clampMargin: clampMargin, history: history, socket: socket.given,
            server: server, logLevel: logLevel, mode: mode, repeatPeriod: repeatPeriod, repeatDelay: repeatDelay,
            doubleWindow: doubleWindow, http: http, httpOrigins: httpOrigins.isEmpty ? nil : httpOrigins, source: source,
            devices: input.devices, keys: input.keys, holdDelay: holdDelay
        )
        options.httpTokens = httpTokens
        broker.apply(to: &options)
        return options
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let flags = flags
        let file = socket.configFile.file
        let options: Options
        do {
            options = try file.read().under(flags, path: file.path)
        } catch {
            printError("volume-guard: \(error)")
            throw ExitCode(2)
        }
        let configuration = DaemonConfiguration(options, environment: environment)
        do {
            // A reload reads the file again with the same parser, if it is a regular file; the flags still win
            // over it.
            try await Daemon.run(configuration, environment: environment) {
                DaemonConfiguration(try file.read(.reload).under(flags, path: file.path), environment: environment)
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

extension Options {
    /// The file's options with `flags` over them. Keys of the broker that do not fit together across the
    /// two (a CA file in the file, `--mqtt mqtt://...` without TLS given) are a mistake of the file, as
    /// they would be within it: the start exits 2, a reload is refused.
    fileprivate func under(_ flags: Options, path: String) throws(ConfigError) -> Options {
        let options = overridden(by: flags)
        if let (key, problem) = options.brokerProblem { throw ConfigError(path: path, key: key, message: "\(problem) (with the flags given)") }
        return options
    }
}
