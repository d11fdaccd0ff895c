/// Reply to `ping`, `pause`, `resume`, `version`, `reload-pairings` and a paired client's press.
public struct AckMessage: Hashable, Sendable, Codable {
    /// One of `types`.
    public var type: String
    public var id: RequestID?
    public var version: String?
    /// For `pressed`: the press's seq, as the subscribers see it.
    public var seq: UInt64?
    /// For `pairings-reloaded`: how many clients are paired now.
    public var clients: Int?

    public init(type: String, id: RequestID?, version: String? = nil, seq: UInt64? = nil, clients: Int? = nil) {
        self.type = type
        self.id = id
        self.version = version
        self.seq = seq
        self.clients = clients
    }

    /// The replies that only acknowledge a request.
    public static let types: Set = ["pong", "paused", "resumed", "version", "pressed", "pairings-reloaded"]
}
