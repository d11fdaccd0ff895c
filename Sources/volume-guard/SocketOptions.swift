import ArgumentParser
import Foundation
import VolumeGuard

/// Where the control socket is, for every command: `--socket`, else `VOLUME_GUARD_SOCKET`, else the
/// config file's `socket`, else `$XDG_RUNTIME_DIR/volume-guard.sock`. `--config` names another file.
struct SocketOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The control socket.", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("The config file (default: $XDG_CONFIG_HOME/volume-guard/config.toml).", valueName: "path"))
    var config: String?

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The socket the command line gives: `--socket`, else `VOLUME_GUARD_SOCKET`, which stands for it.
    var given: String? {
        socket ?? environment["VOLUME_GUARD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The config file's options.
    func fileOptions() throws -> Options {
        try exitingOnMistake { () throws(ConfigError) in try file.read(required: config != nil) }
    }

    var file: ConfigFile {
        ConfigFile(path: config ?? ConfigFile.standardPath(environment: environment))
    }

    /// The socket a client talks to.
    var path: String {
        get throws {
            try given ?? fileOptions().socket ?? Configuration.defaultSocketPath(environment: environment)
        }
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
