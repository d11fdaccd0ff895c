import GuardProtocol

/// A client paired with the HTTP listener: its name, its role and its token's hash, and when it was paired.
public struct PairedClient: Hashable, Sendable, Codable {
    public var name: String
    public var role: ClientRole
    public var tokenHash: TokenHash
    /// When it was paired: ISO 8601, UTC.
    public var paired: String

    public init(name: String, role: ClientRole, tokenHash: TokenHash, paired: String) {
        self.name = name
        self.role = role
        self.tokenHash = tokenHash
        self.paired = paired
    }

    private enum CodingKeys: String, CodingKey {
        case name
        case role
        case tokenHash = "token_sha256"
        case paired
    }
}

/// The clients paired with the HTTP listener, by name: what `pair` adds, `revoke` takes away, and the
/// listener checks each request's token against. A pure value; `PairingsFile` keeps it on disk.
public struct Pairings: Hashable, Sendable {
    /// Sorted by name; no two share a name.
    public private(set) var clients: [PairedClient] = []

    public init(_ clients: [PairedClient] = []) {
        for client in clients { pair(client) }
    }

    /// Adds `client`; returns the client of its name it replaces, whose token no longer works.
    @discardableResult
    public mutating func pair(_ client: PairedClient) -> PairedClient? {
        let replaced = revoke(client.name)
        clients.insert(client, at: clients.firstIndex { $0.name > client.name } ?? clients.endIndex)
        return replaced
    }

    /// Takes the client named `name` away; returns it, or nil when there is none.
    @discardableResult
    public mutating func revoke(_ name: String) -> PairedClient? {
        guard let index = clients.firstIndex(where: { $0.name == name }) else { return nil }
        return clients.remove(at: index)
    }

    public subscript(name: String) -> PairedClient? {
        clients.first { $0.name == name }
    }

    /// The client whose token is `token`, if any. Every hash is compared, each in constant time, so that
    /// the time taken tells nothing of which hash came close.
    public func client(presenting token: Token) -> PairedClient? {
        let hash = token.hash
        var found: PairedClient?
        for client in clients where client.tokenHash.matches(hash) { found = client }
        return found
    }

    /// What a client's name may be, or nil when `name` is one: it names the client in press lines, the
    /// log and the commands, so it is short and plain.
    public static func problem(withName name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 64 else { return "a client's name is 1 to 64 characters" }
        guard name.first != "-", name.first != "." else { return "a client's name starts with a letter or a digit" }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar))
        }
        return allowed ? nil : "a client's name is letters, digits, '-', '_' and '.'"
    }
}
