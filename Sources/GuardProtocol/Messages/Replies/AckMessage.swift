/// Reply to `ping`, `pause`, `resume` and `version`.
public struct AckMessage: Hashable, Sendable, Codable {
    /// One of `types`.
    public var type: String
    public var id: RequestID?
    public var version: String?

    public init(type: String, id: RequestID?, version: String? = nil) {
        self.type = type
        self.id = id
        self.version = version
    }

    /// The replies that only acknowledge a request.
    public static let types: Set = ["pong", "paused", "resumed", "version"]
}
