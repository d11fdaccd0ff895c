import GuardSettings
import ArgumentParser
import Foundation
import GuardConfig
import VolumeGuardDaemon

/// Where the control socket is, for every command: `--socket`, else `VOLUME_GUARD_SOCKET`, else the
/// config file's `socket`, else `$XDG_RUNTIME_DIR/volume-guard.sock`.
struct SocketOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The control socket.", valueName: "path"))
    var socket: String?

    @OptionGroup var configFile: ConfigFileOptions

    /// The socket the command line gives: `--socket`, else `VOLUME_GUARD_SOCKET`, which stands for it.
    var given: String? {
        socket ?? configFile.environment["VOLUME_GUARD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The socket a client talks to.
    var path: String {
        get throws {
            try given ?? configFile.options().socket ?? Configuration.defaultSocketPath(environment: configFile.environment)
        }
    }
}

/// Which config file: `--config`, else `$XDG_CONFIG_HOME/volume-guard/config.toml`.
struct ConfigFileOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The config file (default: $XDG_CONFIG_HOME/volume-guard/config.toml).", valueName: "path"))
    var config: String?

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The config file's options. A file named with `--config` must exist; the default one may not.
    func options() throws -> Options {
        try exitingOnMistake { () throws(ConfigError) in try file.read(required: config != nil) }
    }

    var file: ConfigFile {
        ConfigFile(path: config ?? ConfigFile.standardPath(environment: environment))
    }

    /// The arguments that name the same file to another command, wherever that runs.
    var arguments: [String] {
        guard let config else { return [] }
        let path = config.hasPrefix("/") ? config : FileManager.default.currentDirectoryPath + "/" + config
        return ["--config=" + path]
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
