import GuardProtocol

/// Which presses a configured action takes: of these volume keys, these other keys of a device, this
/// source, this device.
///
/// The core holds it, not the action, because the gesture detector needs it too: the gestures it waits
/// for on a key are those of the actions that take that key's presses (`GestureUses`).
public struct PressMatch: Hashable, Sendable {
    /// The volume keys it takes, from either source.
    public var directions: Set<Direction>
    /// The other keys of a device it takes; nil for any.
    public var keys: Set<UInt16>?
    /// The source it takes presses from; nil for either.
    public var source: Source?
    /// The device it takes presses from, by name, matched as `DeviceMatch` matches names; nil for any.
    public var device: String?

    public init(directions: Set<Direction> = Set(Direction.allCases), keys: Set<UInt16>? = nil, source: Source? = nil, device: String? = nil) {
        self.directions = directions
        self.keys = keys
        self.source = source
        self.device = device
    }

    /// Whether it takes a press of the volume key `direction` (nil for another key of a device), of the
    /// device's `key`, from `origin`.
    public func takes(direction: Direction?, key: UInt16?, origin: Origin) -> Bool {
        if let source, origin.source != source { return false }
        if let device {
            guard case .device(let ref) = origin, DeviceMatch.name(device).matches(name: ref.name) else { return false }
        }
        if let direction { return directions.contains(direction) }
        return key.map { keys?.contains($0) ?? true } ?? false
    }

    /// Whether some press could be taken by both: for what status says of a whole action, whose keys and
    /// devices may be many.
    public func overlaps(_ other: PressMatch) -> Bool {
        if let source, let theirs = other.source, source != theirs { return false }
        if let device, let theirs = other.device,
            !DeviceMatch.name(device).matches(name: theirs), !DeviceMatch.name(theirs).matches(name: device)
        {
            return false
        }
        if !directions.isDisjoint(with: other.directions) { return true }
        switch (keys, other.keys) {
        case (nil, nil): return true
        case (nil, let theirs?): return !theirs.isEmpty
        case (let mine?, nil): return !mine.isEmpty
        case (let mine?, let theirs?): return !mine.isDisjoint(with: theirs)
        }
    }
}
