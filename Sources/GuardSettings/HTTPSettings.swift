/// The HTTP listener as configured: where it binds and which web pages it serves.
public struct HTTPSettings: Hashable, Sendable {
    public var address: ListenAddress
    /// The origins whose pages are served (a request with any other `Origin` is refused) and get CORS
    /// headers; only they may `POST`.
    public var origins: [WebOrigin]

    public init(address: ListenAddress, origins: [WebOrigin] = []) {
        self.address = address
        self.origins = origins
    }
}
