/// One press, sent to every subscriber.
public struct PressMessage: Hashable, Sendable, Codable {
    public var type = "press"
    public var seq: UInt64
    /// The volume key it stands for; absent for another key of a device (`key` names it).
    public var direction: Direction?
    /// A device's key, by the kernel's name (`KEY_VOLUMEUP`, `KEY_ENTER`); absent for a press seen on the sink.
    public var key: String?
    public var count: Int
    public var source: Source
    /// The sink it was made on, for a press seen on the sink.
    public var sink: String?
    /// The device it came from (its name) and its node, for a device's press.
    public var device: String?
    public var path: String?
    /// The paired client that made it (`POST /press`), by its name, for a client's press.
    public var client: String?
    /// When the guard saw it: ISO 8601, UTC, milliseconds.
    public var time: String

    public init(
        seq: UInt64, direction: Direction?, key: String? = nil, count: Int, source: Source = .sink, sink: String?,
        device: String? = nil, path: String? = nil, client: String? = nil, time: String
    ) {
        self.seq = seq
        self.direction = direction
        self.key = key
        self.count = count
        self.source = source
        self.sink = sink
        self.device = device
        self.path = path
        self.client = client
        self.time = time
    }
}
