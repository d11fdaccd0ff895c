import GuardProtocol

/// A device node that a configured match meets, as `InputSource` keeps it.
public struct InputDevice: Hashable, Sendable {
    /// Where the node is in its life.
    public enum Life: Hashable, Sendable {
        /// Known but not open: the daemon is paused.
        case closed
        /// The shell was asked to open it.
        case opening
        /// Open, with a key down: grabbed once none is (the keys still reach everyone else).
        case waiting
        /// The shell was asked to grab it.
        case grabbing
        /// Held exclusively: its keys are presses.
        case grabbed
        /// It could not be opened or grabbed: tried again when `refusal` is due, or when a scan sees it.
        case refused
    }

    /// Why the node was refused, since when, and when it is tried again.
    public struct Refusal: Hashable, Sendable {
        public var error: String
        public var fix: String
        /// The first refusal in this run of them.
        var since: Duration
        /// The wait before the next try, doubled at each refusal up to `InputSource.slowestRetry`.
        var retry: Duration
        var due: Duration
        /// Whether the log was told: once it lasts past `InputSource.refusalGrace`.
        var told: Bool
    }

    public let info: InputDeviceInfo
    /// The configured match it meets (the first, if several do).
    public let match: DeviceMatch
    public internal(set) var life = Life.closed
    public internal(set) var refusal: Refusal?
    /// The keys down on it, as far as the daemon knows: all of them while it waits to grab, the
    /// wanted ones once grabbed.
    var down: Set<UInt16> = []
    /// Events were dropped: key events are ignored until the keys are read again.
    var dropping = false
    /// The last key it sent while grabbed.
    public internal(set) var lastKey: UInt16?

    init(info: InputDeviceInfo, match: DeviceMatch) {
        self.info = info
        self.match = match
    }

    public var ref: DeviceRef { DeviceRef(name: info.name, node: info.node) }

    var isOpen: Bool {
        switch life {
        case .waiting, .grabbing, .grabbed: true
        case .closed, .opening, .refused: false
        }
    }

    /// What status replies call its state.
    public var state: DeviceState {
        switch life {
        case .closed: .paused
        case .opening, .waiting, .grabbing: .waiting
        case .grabbed: .grabbed
        case .refused: .refused
        }
    }
}
