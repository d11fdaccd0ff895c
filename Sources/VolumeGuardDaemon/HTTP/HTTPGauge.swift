import GuardSettings
import NIOConcurrencyHelpers

/// The HTTP listener as `status` reports it: the address it bound, whether it needs tokens, its paired
/// clients, and its connections, counted as they are accepted so that it can turn away those beyond `limit`.
final class HTTPGauge: Sendable {
    /// How many connections the listener serves at once: a thousand event streams and room to spare.
    /// Beyond it, a connection is answered 503 and closed.
    static let defaultLimit = 2048

    let limit: Int
    let pairings: PairedClients
    let tokensRequired: Bool
    private let state = NIOLockedValueBox<(address: ListenAddress?, connections: Int)>((nil, 0))

    init(limit: Int = HTTPGauge.defaultLimit, pairings: PairedClients, tokensRequired: Bool) {
        self.limit = limit
        self.pairings = pairings
        self.tokensRequired = tokensRequired
    }

    /// Where the listener is bound; nil until it is.
    var address: ListenAddress? {
        get { state.withLockedValue { $0.address } }
        set { state.withLockedValue { $0.address = newValue } }
    }

    var connections: Int { state.withLockedValue { $0.connections } }

    /// Counts a new connection; false (not counted) when the listener is full.
    func admit() -> Bool {
        state.withLockedValue { state in
            guard state.connections < limit else { return false }
            state.connections += 1
            return true
        }
    }

    /// An admitted connection closed.
    func closed() {
        state.withLockedValue { $0.connections -= 1 }
    }
}
