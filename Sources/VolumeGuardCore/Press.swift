import GuardProtocol

/// One change a person made to the guarded sink, reported to subscribers.
public struct Press: Hashable, Sendable {
    /// Rises by one per press over the daemon's life, so clients can tell what they missed.
    public var seq: UInt64
    public var direction: Direction
    /// How many key steps the change stands for: servers merge queued changes, so one observed change
    /// may carry several presses.
    public var count: Int
    /// The name of the sink the press was made on.
    public var sink: String

    public init(seq: UInt64, direction: Direction, count: Int, sink: String) {
        self.seq = seq
        self.direction = direction
        self.count = count
        self.sink = sink
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
