import ArgumentParser
import FoundationEssentials
import GuardConfig
import GuardSettings

/// Where the control socket is, for every command: `--socket`, else `VOLUME_GUARD_SOCKET`, else the
/// config file's `socket`, else `$XDG_RUNTIME_DIR/volume-guard.sock`.
public struct SocketOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: .setting("socket", valueName: "path"))
    public var socket: String?

    @OptionGroup public var configFile: ConfigFileOptions

    /// The socket the command line gives: `--socket`, else `VOLUME_GUARD_SOCKET`, which stands for it.
    public var given: String? {
        socket ?? configFile.environment.nonEmpty("VOLUME_GUARD_SOCKET")
    }

    /// The socket a client talks to. A socket given is not looked up: the config file is not read, so a
    /// user who may not read it (another user's `HOME`, under `sudo -u`) still reaches the daemon.
    var path: String {
        get throws {
            if let given { return given }
            return try path(options: configFile.options(), environment: configFile.environment)
        }
    }

    /// The socket a client talks to, given the config file's `options` and the `environment` its default
    /// comes from (the user's own, for `learn` under sudo).
    func path(options: Options, environment: [String: String]) -> String {
        given ?? options.socket ?? DaemonConfiguration.defaultSocketPath(environment: environment)
    }
}

/// Which config file: `--config`, else `$XDG_CONFIG_HOME/volume-guard/config.toml`.
public struct ConfigFileOptions: ParsableArguments {
    public init() {}

    @Option(name: .long, help: ArgumentHelp("The config file (default: $XDG_CONFIG_HOME/volume-guard/config.toml).", valueName: "path"))
    public var config: String?

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The config file's options. A file named with `--config` must exist; the default one may not.
    public func options() throws -> Options {
        try exitingOnMistake { () throws(ConfigError) in try file.read() }
    }

    /// The file, parsed in a child of this very executable: nothing in it can end the command, nor the
    /// daemon on a reload (`ConfigFile.Parser`).
    public var file: ConfigFile {
        file(environment: environment, required: config != nil)
    }

    /// The file for a user whose environment is `environment` (the user's own, for `learn` under sudo);
    /// `required`, it must exist.
    func file(environment: [String: String], required: Bool) -> ConfigFile {
        ConfigFile(
            path: config ?? ConfigFile.standardPath(environment: environment), required: required, parser: .child(executable: "/proc/self/exe"))
    }
}

/// `body`'s result; a mistake in the config file (or a file named with `--config` that cannot be read)
/// ends the command with the file, line and key, and exit code 2.
func exitingOnMistake<Result>(_ body: () throws(ConfigError) -> Result) throws -> Result {
    do {
        return try body()
    } catch {
        printError("volume-guard: \(error)")
        throw ExitCode(2)
    }
}
