/// An input device in a status reply.
public struct DeviceMessage: Hashable, Sendable, Codable {
    /// The configured match it meets, as written (`AB Shutter3`, `2717:0040`, a path).
    public var match: String
    /// Its name, node and `vendor:product`; absent for a match no device meets.
    public var name: String?
    public var path: String?
    public var ids: String?
    /// Its Bluetooth address, when it has one.
    public var address: String?
    public var state: DeviceState
    /// Why it is refused, and what to do about it.
    public var error: String?
    public var fix: String?
    /// The last key it sent, by the kernel's name.
    public var lastKey: String?

    public init(
        match: String, name: String? = nil, path: String? = nil, ids: String? = nil, address: String? = nil, state: DeviceState,
        error: String? = nil, fix: String? = nil, lastKey: String? = nil
    ) {
        self.match = match
        self.name = name
        self.path = path
        self.ids = ids
        self.address = address
        self.state = state
        self.error = error
        self.fix = fix
        self.lastKey = lastKey
    }

    private enum CodingKeys: String, CodingKey {
        case match, name, path, ids, address, state, error, fix
        case lastKey = "last_key"
    }
}
