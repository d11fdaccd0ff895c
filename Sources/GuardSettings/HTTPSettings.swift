/// The HTTP listener as configured: where it binds and which web pages it serves.
public struct HTTPSettings: Hashable, Sendable {
    public var address: ListenAddress
    /// The origins whose pages are served (a request with any other `Origin` is refused) and get CORS
    /// headers; only they may `POST`.
    public var origins: [WebOrigin]
    /// Whether every request needs a paired client's token: always on an address other than loopback,
    /// and on loopback when `http-tokens` asks.
    public var tokensRequired: Bool

    public init(address: ListenAddress, origins: [WebOrigin] = [], tokensOnLoopback: Bool = false) {
        self.address = address
        self.origins = origins
        self.tokensRequired = tokensOnLoopback || !address.isLoopback
    }
}
