import ArgumentParser
import GuardProtocol
import Pairing
import VolumeGuardClient

/// What `pair`, `paired` and `revoke` share: the pairings file (the daemon's user's, under its state
/// directory) and the daemon, told to read it again once it has changed.
struct PairingsOptions: ParsableArguments {
    @OptionGroup var socket: SocketOptions

    var file: PairingsFile {
        PairingsFile(path: PairingsFile.standardPath(environment: socket.configFile.environment))
    }

    /// The pairings on disk; a damaged file ends the command with its path (exit 1).
    func load() throws -> Pairings {
        do {
            return try file.load()
        } catch {
            printError("volume-guard: \(error)")
            throw ExitCode.failure
        }
    }

    /// Writes `pairings`, then has a running daemon read them again: a revoked client's streams close at
    /// once. A daemon not running reads them when it starts.
    func save(_ pairings: Pairings) async throws {
        do {
            try file.save(pairings)
        } catch {
            printError("volume-guard: cannot write \(file.path): \(error)")
            throw ExitCode.failure
        }
        do {
            let reply = try await GuardClient(socketPath: socket.path).request(Request(.reloadPairings))
            if case .error(let error) = reply { printError("volume-guard: the daemon could not read them: \(error.message)") }
        } catch GuardClient.Failure.noDaemon {
            return
        } catch {
            printError("volume-guard: the daemon was not told (\(error)); it reads them on its next reload or start")
        }
    }
}
