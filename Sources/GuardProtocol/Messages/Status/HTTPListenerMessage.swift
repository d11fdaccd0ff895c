/// The HTTP listener in a status reply.
public struct HTTPListenerMessage: Hashable, Sendable, Codable {
    /// Where it listens, as bound: `127.0.0.1:8370`.
    public var address: String
    /// Event streams open now (they count among `subscribers` too).
    public var clients: Int
    /// Connections open now, event streams included.
    public var connections: Int
    /// Whether every request needs a paired client's token: off loopback always, on it with `http-tokens`.
    public var tokens: Bool
    /// The clients paired now (`volume-guard paired` lists them).
    public var paired: Int

    public init(address: String, clients: Int, connections: Int, tokens: Bool = false, paired: Int = 0) {
        self.address = address
        self.clients = clients
        self.connections = connections
        self.tokens = tokens
        self.paired = paired
    }
}
