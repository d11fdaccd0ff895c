import GuardSettings

/// The pairings file of the HTTP listener's clients, judged beside where the listener is: a tablet reaches
/// only a listener on the network, and one there serves only the clients paired.
extension Diagnosis {
    func pairings(_ pairings: PairingsFacts) -> Finding {
        let clients: [String]
        switch pairings.clients {
        case .failure(let error):
            return .wrong(.pairings, "\(error)", fix: "set it aside and pair again: mv \(pairings.path) \(pairings.path).old && volume-guard pair NAME")
        case .success(let names): clients = names
        }
        if let mode = pairings.mode, mode & 0o077 != 0 {
            return .wrong(
                .pairings, "\(pairings.path) is mode \(String(mode, radix: 8)): others may read the tokens' hashes", fix: "chmod 600 \(pairings.path)")
        }
        guard let listener = configuration.http else { return .ok(.pairings, "\(clients.count) paired") }
        let named = clients.isEmpty ? "no client is paired" : "\(clients.count) paired (\(clients.joined(separator: ", ")))"
        if listener.tokensRequired, clients.isEmpty {
            return .wrong(
                .pairings, "the HTTP listener at \(listener.address) needs a paired client's token, and \(named)",
                fix: "volume-guard pair NAME --role trigger, and open the URL it prints on the tablet")
        }
        if listener.address.isLoopback, !clients.isEmpty {
            return .wrong(
                .pairings, "\(named), but the HTTP listener is on loopback (\(listener.address)): no tablet on the network reaches it",
                fix: "set http = \"0.0.0.0:\(listener.address.port)\" in the config file, then systemctl --user restart volume-guard")
        }
        let reach = listener.address.isLoopback ? "this machine only" : "the network, every request with a paired client's token"
        return .ok(.pairings, "\(named); the listener at \(listener.address) serves \(reach)")
    }
}
