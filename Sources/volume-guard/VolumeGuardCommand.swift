import ArgumentParser
import ClientCommands
import Glibc
import GuardProtocol
import VolumeGuardDaemon

@main
struct VolumeGuardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "volume-guard",
        abstract: "Turns the volume keys into buttons.",
        discussion: """
            The daemon (`run`) holds the default sink's volume: each change a person makes is reported as a \
            press on a Unix socket and the volume is put straight back. The other commands talk to it.
            Exit codes: 0 ok, 1 error, 2 usage, 3 no daemon running.
            """,
        version: VolumeGuardVersion.current,
        subcommands: [
            Run.self, Status.self, Watch.self, Pause.self, Resume.self, Devices.self, Learn.self, CheckConfig.self, Doctor.self, Pair.self,
            Paired.self, Revoke.self, LearnFiles.self,
        ]
    )

    /// ArgumentParser's own `main`, except that a usage error exits with 2, as documented (and as shells
    /// do), instead of 64, and that every task prefers SwiftNIO's one event loop to Swift concurrency's
    /// default executor: set here, on the main actor, before the first job of the process runs anywhere
    /// else (EventLoopExecutor).
    @MainActor static func main() async {
        await withTaskExecutorPreference(EventLoopExecutor.shared) {
            do {
                var command = try parseAsRoot()
                if var command = command as? AsyncParsableCommand {
                    try await command.run()
                } else {
                    try command.run()
                }
            } catch let error where exitCode(for: error) == .validationFailure {
                printError(fullMessage(for: error))
                Glibc.exit(2)
            } catch {
                exit(withError: error)
            }
        }
    }
}
