import GuardProtocol

/// The gestures the configured actions run on, with the presses each takes: what the gesture detectors
/// look for on each key.
///
/// A tap is a press that none of the gestures looked for on its key claims, so it is told as soon as
/// none of them still can: a tap waits for a double window only where a double is looked for, and for a
/// repeat (on the sink) or the key's release (on a device) only where a hold is. A key that no action
/// takes a gesture of is looked at for every gesture, for the subscribers, which configure nothing here.
public struct GestureUses: Hashable, Sendable {
    /// One action's gesture and the presses it takes.
    public struct Use: Hashable, Sendable {
        public var gesture: TriggerKind
        public var presses: PressMatch

        public init(_ gesture: TriggerKind, _ presses: PressMatch) {
            self.gesture = gesture
            self.presses = presses
        }
    }

    /// The gestures other than the tap that are looked for on a key: those a tap must wait for.
    public struct LookedFor: Hashable, Sendable {
        public var hold: Bool
        public var double: Bool

        public init(hold: Bool, double: Bool) {
            self.hold = hold
            self.double = double
        }

        /// A key no action takes a gesture of.
        public static let all = LookedFor(hold: true, double: true)
    }

    /// The uses on gestures; an action on every press looks for none.
    public private(set) var uses: [Use]

    /// No action on any gesture: every gesture is looked for on every key.
    public init(_ uses: [Use] = []) {
        self.uses = uses.filter { $0.gesture != .press }
    }

    /// What is looked for on the key of a press of `direction` (nil for another key of a device), `key`,
    /// from `origin`.
    public func lookedFor(direction: Direction?, key: UInt16?, origin: Origin) -> LookedFor {
        Self.lookedFor(uses.filter { $0.presses.takes(direction: direction, key: key, origin: origin) })
    }

    /// What is looked for on the keys of an action on taps that takes `presses`: a key of its looks for
    /// a gesture when some action on that gesture takes a press `presses` takes too, so that status tells
    /// the longest a tap of it waits.
    public func lookedFor(overlapping presses: PressMatch) -> LookedFor {
        Self.lookedFor(uses.filter { $0.presses.overlaps(presses) })
    }

    private static func lookedFor(_ uses: [Use]) -> LookedFor {
        guard !uses.isEmpty else { return .all }
        return LookedFor(hold: uses.contains { $0.gesture == .hold }, double: uses.contains { $0.gesture == .double })
    }
}
