import ArgumentParser
import GuardProtocol

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
        subcommands: [Run.self, Status.self, Watch.self, Pause.self, Resume.self]
    )
}
