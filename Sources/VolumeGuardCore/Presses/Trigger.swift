import GuardProtocol

/// What an action is matched against: a press, or a gesture of a key (its tap, its hold's start, its
/// double press), as one value, so that the actions take one kind of input whichever it was.
public struct Trigger: Hashable, Sendable {
    public var kind: TriggerKind
    /// The press's seq; for a gesture, the press that completed it.
    public var seq: UInt64
    public var direction: Direction?
    public var key: UInt16?
    /// The key steps it stands for: a press's count, a gesture's presses.
    public var count: Int
    public var origin: Origin

    public init(kind: TriggerKind, seq: UInt64, direction: Direction?, key: UInt16? = nil, count: Int, origin: Origin) {
        self.kind = kind
        self.seq = seq
        self.direction = direction
        self.key = key
        self.count = count
        self.origin = origin
    }

    public init(_ press: Press) {
        self.init(kind: .press, seq: press.seq, direction: press.direction, key: press.key, count: press.count, origin: press.origin)
    }

    /// The gesture as a trigger; nil for a hold's end, which starts nothing: an action on a hold runs once,
    /// at its start.
    public init?(_ gesture: Gesture) {
        let kind: TriggerKind
        switch gesture.kind {
        case .tap: kind = .tap
        case .holdStart: kind = .hold
        case .double: kind = .double
        case .holdEnd: return nil
        }
        self.init(kind: kind, seq: gesture.seq, direction: gesture.direction, key: gesture.key, count: gesture.presses, origin: gesture.origin)
    }
}
