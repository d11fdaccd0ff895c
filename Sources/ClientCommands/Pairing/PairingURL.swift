import GuardSettings
import Pairing

/// The URL a paired client opens: the HTTP listener's page, with the client's token in its query. A
/// listener bound to every address (`0.0.0.0`, `::`) is reached at one of the machine's own, the one the
/// tablet's network sees; `--host` names it when the first one found is not.
struct PairingURL: Equatable {
    let text: String

    /// The URL for `token` at `listener`, reached at `host` if given, else at `lanAddress` when the
    /// listener takes every address; nil when it does and no address is known.
    init?(listener: ListenAddress, host: String?, lanAddress: String?, token: Token) {
        let wildcard = listener.host == "0.0.0.0" || listener.host == "::"
        guard let reached = host ?? (wildcard ? lanAddress : listener.host) else { return nil }
        let address = ListenAddress(host: reached, port: listener.port)
        text = "http://\(address)/?token=\(token.text)"
    }
}
