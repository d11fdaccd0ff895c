/// A device's key came back up, or can no longer be down (`cause`): sent to every subscriber, after its
/// press.
public struct ReleaseMessage: Hashable, Sendable, Codable {
    public var type = "release"
    /// The seq of the key's press.
    public var seq: UInt64
    public var direction: Direction?
    public var key: String
    public var source: Source
    public var device: String
    public var path: String
    public var cause: ReleaseCause
    /// How long the key was down, in milliseconds.
    public var heldMilliseconds: Int
    public var time: String

    public init(
        seq: UInt64, direction: Direction?, key: String, device: String, path: String, cause: ReleaseCause, heldMilliseconds: Int,
        time: String
    ) {
        self.seq = seq
        self.direction = direction
        self.key = key
        self.source = .input
        self.device = device
        self.path = path
        self.cause = cause
        self.heldMilliseconds = heldMilliseconds
        self.time = time
    }

    private enum CodingKeys: String, CodingKey {
        case type, seq, direction, key, source, device, path, cause, time
        case heldMilliseconds = "held_ms"
    }
}
