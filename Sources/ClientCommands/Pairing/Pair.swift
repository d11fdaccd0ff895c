import ArgumentParser
import FoundationEssentials
import Glibc
import GuardProtocol
import GuardSettings
import Pairing
import VolumeGuardClient

/// `volume-guard pair NAME`: a token for one client of the HTTP listener (a tablet, a phone), shown once
/// as the URL it opens, with a QR code of it where Debian's `qrencode` is installed.
public struct Pair: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        abstract: "Pair a tablet or phone with the HTTP listener: a token of its own, shown once as a URL and a QR code.",
        discussion: """
            The token is kept only as a hash, in $XDG_STATE_HOME/volume-guard/pairings.json. Pairing a name again \
            gives it a new token and revokes the old one. `volume-guard paired` lists the clients, `volume-guard \
            revoke NAME` takes one away.
            """)

    @Argument(help: "The client's name, as presses and the log name it: letters, digits, '-', '_', '.'.")
    var name: String

    @Option(help: "What it may do: \(ClientRole.names) (each allows what the one before it allows).")
    var role: ClientRole = .trigger

    @Option(help: "The address the client reaches this machine at, for the URL (default: the listener's, or this machine's first on a network).")
    var host: String?

    @OptionGroup var pairings: PairingsOptions

    public func validate() throws {
        if let problem = Pairings.problem(withName: name) { throw ValidationError(problem) }
        if let host, ListenAddress("\(host.contains(":") ? "[\(host)]" : host):1") == nil {
            throw ValidationError("--host must be an IP address: the booth's on the tablet's network")
        }
    }

    public func run() async throws {
        let token: Token
        do {
            token = try Token.generate()
        } catch {
            printError("volume-guard: \(error)")
            throw ExitCode.failure
        }
        var paired = try pairings.load()
        let replaced = paired.pair(PairedClient(name: name, role: role, tokenHash: token.hash, paired: Self.now()))
        try await pairings.save(paired)
        printLine(replaced == nil ? "Paired \(name) as \(role.rawValue)." : "Paired \(name) again, as \(role.rawValue): its old token no longer works.")
        guard let listener = await listenerAddress() else {
            printLine(
                """
                No HTTP listener is configured: set http = "0.0.0.0:8370" in the config file and restart the daemon. \
                Then open http://<this machine>:8370/?token=\(token.text) on \(name) (shown once).
                """)
            return
        }
        guard let url = PairingURL(listener: listener, host: host, lanAddress: LANAddress.first(), token: token) else {
            printLine("Open http://<this machine>:\(listener.port)/?token=\(token.text) on \(name) (shown once; no network address found here).")
            return
        }
        if listener.isLoopback, host == nil {
            printError("volume-guard: the HTTP listener is on loopback: only this machine reaches it (set http = \"0.0.0.0:8370\" for a tablet)")
        }
        printLine("Open this on \(name) (shown once):\n\(url.text)")
        // The URL goes on qrencode's standard input, never in its arguments, which every local user can read.
        let code = BoundedRun(
            ["qrencode", "-t", isatty(1) != 0 ? "ANSIUTF8" : "UTF8", "-m", "2"], input: Array(url.text.utf8),
            environment: pairings.socket.configFile.environment)
        if case .answered(let lines, status: 0) = code {
            printLine(lines.joined(separator: "\n"))
        } else {
            printLine("(install qrencode for a QR code of it: apt install qrencode)")
        }
    }

    /// The listener's address: as the running daemon bound it (its real port), else as the config file
    /// writes it; nil without one.
    private func listenerAddress() async -> ListenAddress? {
        if let status = try? await GuardClient(socketPath: pairings.socket.path).request(Request(.status)), case .status(let message) = status {
            if let bound = message.http.flatMap({ ListenAddress($0.address) }) { return bound }
        }
        return (try? pairings.socket.configFile.options().http).flatMap { $0 }.flatMap(ListenAddress.init)
    }

    private static func now() -> String {
        Date.now.formatted(.iso8601)
    }
}

extension ClientRole: ExpressibleByArgument {}
