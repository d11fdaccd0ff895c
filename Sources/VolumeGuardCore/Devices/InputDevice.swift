import GuardProtocol

/// A device node that a configured match meets, as `InputSource` keeps it.
public struct InputDevice: Hashable, Sendable {
    /// Where the node is in its life. On the way to a grab, the refusals met since the node was last
    /// grabbed (or opened after a pause) ride along, so that their backoff goes on from where it was and
    /// the log is told of them once; a grab ends them.
    public enum Life: Hashable, Sendable {
        /// Known but not open: the daemon is paused.
        case closed
        /// The shell was asked to open it.
        case opening(after: Refusal?)
        /// Open, with a key down: grabbed once none is (the keys still reach everyone else). `keys`: all
        /// the keys down on it.
        case waiting(after: Refusal?, OpenKeys)
        /// The shell was asked to grab it.
        case grabbing(after: Refusal?, OpenKeys)
        /// Grabbed (EVIOCGRAB): its keys are presses. `keys`: the wanted ones down; `kernelUps`: keys the
        /// kernel let up itself, waiting to be told whether the device went with them.
        case grabbed(OpenKeys, kernelUps: KernelUps?)
        /// It could not be opened or grabbed: tried again when the refusal is due, or when a scan sees it.
        case refused(Refusal)

        /// The last refusal in the current run of them, which a grab ends.
        var lastRefusal: Refusal? {
            switch self {
            case .opening(let refusal), .waiting(let refusal, _), .grabbing(let refusal, _): refusal
            case .refused(let refusal): refusal
            case .closed, .grabbed: nil
            }
        }
    }

    /// Why the node was refused, since when, and when it is tried again.
    public struct Refusal: Hashable, Sendable {
        public var problem: DeviceProblem
        /// The first refusal in this run of them.
        var since: Duration
        /// The wait before the next try, doubled at each refusal up to `InputSource.slowestRetry`.
        var retry: Duration
        var due: Duration
        /// Whether the log was told: once it lasts past `InputSource.refusalGrace`.
        var told: Bool
    }

    public internal(set) var info: InputDeviceInfo
    /// The configured match it meets (the first, if several do).
    public let match: DeviceMatch
    /// An open node's keys, as far as the daemon knows.
    public struct OpenKeys: Hashable, Sendable {
        /// The keys down on it.
        var down: Set<UInt16> = []
        /// Events were dropped (SYN_DROPPED): key events are ignored until the keys are read again.
        var dropping = false
    }

    public internal(set) var life = Life.closed
    /// The keys the kernel let up (`InputSource.kernelReleased`): still in `down` until their grace ends,
    /// at `due`.
    public struct KernelUps: Hashable, Sendable {
        var keys: Set<UInt16>
        var due: Duration
    }

    /// The last key it sent while grabbed.
    public internal(set) var lastKey: UInt16?

    init(info: InputDeviceInfo, match: DeviceMatch) {
        self.info = info
        self.match = match
    }

    public var ref: DeviceRef { DeviceRef(name: info.name, node: info.node) }

    var isOpen: Bool { keys != nil }

    /// The open node's keys; nil while it is not open, and setting them then changes nothing.
    var keys: OpenKeys? {
        get {
            switch life {
            case .waiting(_, let keys), .grabbing(_, let keys), .grabbed(let keys, _): keys
            case .closed, .opening, .refused: nil
            }
        }
        set {
            guard let newValue else { return }
            switch life {
            case .waiting(let refusal, _): life = .waiting(after: refusal, newValue)
            case .grabbing(let refusal, _): life = .grabbing(after: refusal, newValue)
            case .grabbed(_, let ups): life = .grabbed(newValue, kernelUps: ups)
            case .closed, .opening, .refused: break
            }
        }
    }

    var isGrabbed: Bool {
        if case .grabbed = life { true } else { false }
    }

    /// The keys the kernel let up, while grabbed.
    var kernelUps: KernelUps? {
        if case .grabbed(_, let ups) = life { ups } else { nil }
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

    /// Why it is refused, while it is.
    public var refusal: Refusal? {
        if case .refused(let refusal) = life { refusal } else { nil }
    }
}
