/// The HTTP listener in a status reply.
public struct HTTPListenerMessage: Hashable, Sendable, Codable {
    /// Where it listens, as bound: `127.0.0.1:8370`.
    public var address: String
    /// Event streams open now (they count among `subscribers` too).
    public var clients: Int
    /// Connections open now, event streams included.
    public var connections: Int

    public init(address: String, clients: Int, connections: Int) {
        self.address = address
        self.clients = clients
        self.connections = connections
    }
}
