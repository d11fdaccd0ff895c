/// The HTTP listener's answer to `/client`: the paired client whose token came with the request.
public struct ClientMessage: Hashable, Sendable, Codable {
    public var type = "client"
    public var name: String
    public var role: ClientRole

    public init(name: String, role: ClientRole) {
        self.name = name
        self.role = role
    }
}
