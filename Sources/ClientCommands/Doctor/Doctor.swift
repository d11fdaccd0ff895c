import ArgumentParser
import GuardProtocol

/// `volume-guard doctor`: every link of the chain from a key to a press, each checked, each that does not
/// hold with the command that fixes it. The facts are gathered (`DoctorFacts.gather`), then judged
/// (`Diagnosis`), so the judgement is tested with no system at all.
public struct Doctor: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        abstract: "Check every link from a key to a press, and say how to fix each one that does not hold.",
        discussion: """
            Run it as the user the daemon runs as, when a press does nothing. It checks, in order: the config file; the \
            daemon, at the socket run would use (the file's socket key read alone when the file has a mistake elsewhere), \
            running, and its state (one that does not answer is named by its pid, found by its socket in /proc); for the sink (source sink or both): the audio server, the default sink (or the \
            configured one), and the desktop's volume popup (MATE and KDE Plasma have a setting that turns it off, GNOME none: \
            there the cure is source = "input"); for the devices (source input or both): each configured device present, \
            readable by this user, grabbed by the daemon and by no other program (a grab, let go at once, tells; /proc names \
            the program when it is this user's), and whether the udev rule installed (/etc/udev/rules.d/70-volume-guard.rules) \
            covers it; the service: enabled, and lingering when the user has no session on a seat (a booth started at boot); \
            each action's program, found in the service's PATH and executable; the HTTP listener, connected to; and its \
            pairings file, readable and private, with a client paired when the listener needs tokens, and a listener a \
            tablet reaches when a client is paired.
            Each finding is one line: ok, FAIL, or ? for a check that could not be made (no systemd, no permission), which \
            is said so and never guessed; a FAIL line ends with the command that fixes it. Every wait is bounded (the daemon, \
            the audio server, systemctl: 3 s each; the HTTP listener: 2 s), so it never hangs.
            --json prints {"ok": BOOL, "findings": [{"link", "subject", "status" (ok, wrong, unknown), "message", "fix"}]}.
            Exit codes: 0 when nothing is wrong, 1 when something is.
            """
    )

    @OptionGroup var socket: SocketOptions

    @Flag(help: "Print the findings as JSON, for scripts.")
    var json = false

    public func run() async throws {
        let diagnosis = Diagnosis(await DoctorFacts.gather(socket))
        let findings = diagnosis.findings
        if json {
            print(String(decoding: WireFormat.line(Report(ok: diagnosis.isHealthy, findings: findings)), as: UTF8.self), terminator: "")
        } else {
            print(findings.map(\.text).joined(separator: "\n"))
        }
        if !diagnosis.isHealthy { throw ExitCode.failure }
    }

    /// What `--json` prints.
    private struct Report: Encodable {
        var ok: Bool
        var findings: [Finding]
    }
}
