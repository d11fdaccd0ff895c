import GuardProtocol

/// One press of a key, from either source, numbered: a change a person made to the guarded sink's
/// volume or mute, or a key going down on a grabbed input device.
public struct Press: Hashable, Sendable {
    /// Rises by one per press over the daemon's life, whatever the source, so clients can tell what they
    /// missed.
    public var seq: UInt64
    /// The volume key it stands for; nil for another key of a device.
    public var direction: Direction?
    /// The device's key code; nil for a press seen on the sink, where no key is known.
    public var key: UInt16?
    /// How many key steps it stands for: servers merge queued changes, so one observed change may carry
    /// several presses. One for a device's key.
    public var count: Int
    public var origin: Origin

    public init(seq: UInt64, direction: Direction?, key: UInt16? = nil, count: Int, origin: Origin) {
        self.seq = seq
        self.direction = direction
        self.key = key
        self.count = count
        self.origin = origin
    }

    /// A press seen on the sink named `sink`.
    public init(seq: UInt64, direction: Direction, count: Int, sink: String) {
        self.init(seq: seq, direction: direction, count: count, origin: .sink(sink))
    }
}

/// Where a press came from.
public enum Origin: Hashable, Sendable {
    /// The sink with this name.
    case sink(String)
    /// A grabbed input device.
    case device(DeviceRef)
    /// The client paired with the HTTP listener under this name.
    case client(String)

    public var source: Source {
        switch self {
        case .sink: .sink
        case .device: .input
        case .client: .client
        }
    }
}

/// An input device as presses name it: its name, and its node, which tells apart two devices of one name.
public struct DeviceRef: Hashable, Sendable {
    public var name: String
    public var node: String

    public init(name: String, node: String) {
        self.name = name
        self.node = node
    }
}

/// A device's key that is no longer down, paired with its press.
public struct Release: Hashable, Sendable {
    /// Its press's seq.
    public var seq: UInt64
    public var direction: Direction?
    public var key: UInt16
    public var device: DeviceRef
    public var cause: ReleaseCause
    /// How long the key was down.
    public var held: Duration

    public init(seq: UInt64, direction: Direction?, key: UInt16, device: DeviceRef, cause: ReleaseCause, held: Duration) {
        self.seq = seq
        self.direction = direction
        self.key = key
        self.device = device
        self.cause = cause
        self.held = held
    }
}

/// Presses counted per direction (in key steps) since the daemon started.
public struct PressCounts: Hashable, Sendable {
    public var up = 0
    public var down = 0
    public var mute = 0

    public init() {}

    public subscript(direction: Direction) -> Int {
        get {
            switch direction {
            case .up: up
            case .down: down
            case .mute: mute
            }
        }
        set {
            switch direction {
            case .up: up = newValue
            case .down: down = newValue
            case .mute: mute = newValue
            }
        }
    }
}
