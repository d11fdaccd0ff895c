import ArgumentParser
import GuardProtocol
import Pairing

/// `volume-guard paired`: the clients paired with the HTTP listener, a line each.
public struct Paired: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(abstract: "List the tablets and phones paired with the HTTP listener.")

    @OptionGroup var pairings: PairingsOptions

    public func run() async throws {
        let clients = try pairings.load().clients
        guard !clients.isEmpty else {
            printLine("No client is paired: volume-guard pair NAME")
            return
        }
        let width = max(4, clients.map(\.name.count).max() ?? 0)
        printLine("NAME".padding(width) + "  ROLE     PAIRED")
        for client in clients {
            printLine(client.name.padding(width) + "  " + client.role.rawValue.padding(7) + "  " + client.paired)
        }
    }
}

/// `volume-guard revoke NAME`: the client's token no longer works, and its open streams are closed.
public struct Revoke: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(abstract: "Take a paired tablet or phone away: its token stops working at once.")

    @Argument(help: "The client's name, as `volume-guard paired` lists it.")
    var name: String

    @OptionGroup var pairings: PairingsOptions

    public func run() async throws {
        var paired = try pairings.load()
        guard paired.revoke(name) != nil else {
            printError("volume-guard: no client is paired as \(name); paired: \(paired.clients.map(\.name).joined(separator: ", "))")
            throw ExitCode.failure
        }
        try await pairings.save(paired)
        printLine("Revoked \(name): its token no longer works.")
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}
