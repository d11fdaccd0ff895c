/// A gesture, sent to subscribers that did not turn gestures off: extra to the press lines, which stay
/// exactly as they are.
public struct GestureMessage: Hashable, Sendable, Codable {
    public var type = "gesture"
    public var gesture: GestureKind
    public var direction: Direction?
    public var key: String?
    /// The seq of the press that completed the gesture.
    public var seq: UInt64
    /// How many key steps the gesture spans so far.
    public var presses: Int
    public var source: Source
    public var sink: String?
    public var device: String?
    public var path: String?
    /// The paired client that made it, for a client's gesture.
    public var client: String?
    /// Why a device's hold ended: its release's cause.
    public var cause: ReleaseCause?
    /// When the guard told it: ISO 8601, UTC, milliseconds.
    public var time: String

    public init(
        gesture: GestureKind, direction: Direction?, key: String? = nil, seq: UInt64, presses: Int, source: Source = .sink,
        sink: String?, device: String? = nil, path: String? = nil, client: String? = nil, cause: ReleaseCause? = nil,
        time: String
    ) {
        self.gesture = gesture
        self.direction = direction
        self.key = key
        self.seq = seq
        self.presses = presses
        self.source = source
        self.sink = sink
        self.device = device
        self.path = path
        self.client = client
        self.cause = cause
        self.time = time
    }
}
