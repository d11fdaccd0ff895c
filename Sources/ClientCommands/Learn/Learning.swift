import GuardProtocol
import VolumeGuardCore

/// What `learn` heard, as a value: fed the keys that went down on the devices it reads and the changes of
/// the default sink, each with the time, it keeps the keys learned, tells which of them the desktop turned
/// into a volume change, and says when learning is over.
///
/// The first key is waited for up to `Limits.first`. Each new key then gives the user `Limits.next` more to
/// press another (a second button, a second key for a second action); a key already learned, pressed
/// again, does not, so a remote pressed over and over still ends the run. `Limits.count` ends it after that
/// many keys, once a desktop's change of the sink would have been seen.
///
/// A key already down when learn opened its device (a remote's key held since before learn started, whose
/// device sends no repeats) counts once it has stayed down `heldAtOpen`: the Enter that started learn is
/// let up sooner.
struct Learning {
    struct Limits: Hashable, Sendable {
        /// How long to wait for the first key.
        var first: Duration
        /// How long to wait for another key after the last new one.
        var next: Duration
        /// The number of keys after which learning ends at once; nil for no such number.
        var count: Int?
    }

    /// A key learned: the device it went down on, and whether a change of the sink followed it.
    struct Learned: Hashable, Sendable {
        var device: InputDeviceInfo
        var key: UInt16
        /// The sink's change that followed a press of it, when a desktop turned the key into one.
        var sinkChange: Direction?
    }

    /// What was fed.
    enum Input: Hashable, Sendable {
        /// A key went down, or repeated.
        case keyDown(InputDeviceInfo, key: UInt16)
        case keyUp(InputDeviceInfo, key: UInt16)
        /// The key was down already when learn opened the device, one there when learn started.
        case keyDownAtOpen(InputDeviceInfo, key: UInt16)
        /// Time passed: a key down since the open may count now.
        case tick
        /// The default sink's volume went up or down, or its mute changed.
        case sinkChanged(Direction)
    }

    /// What to tell the user of an input.
    enum News: Hashable, Sendable {
        /// A key not heard before.
        case learned(Learned)
        /// The desktop turned the press of the learned key at `index` into a change of the sink.
        case desktopReacted(index: Int, Direction)
        /// The sink changed with no key learn could read pressed just before: a key of a device it may not
        /// read, or a change made another way.
        case sinkAlone(Direction)
    }

    /// How long after a key's press a change of the sink is taken for the desktop's doing. A desktop acts
    /// within milliseconds; a second covers a loaded machine and a slow server.
    static let echoWindow: Duration = .seconds(1)
    /// How long a key down at the open must stay down to count.
    static let heldAtOpen: Duration = .milliseconds(500)

    let limits: Limits
    private(set) var learned: [Learned] = []
    /// The changes of the sink that no key explains, each direction once: each is a key heard too.
    private(set) var sinkAlone: [Direction] = []
    /// When each learned key (by its index in `learned`) last went down, for `echoWindow`.
    private var lastDown: [Int: Duration] = [:]
    /// When the last new key was learned.
    private var lastNew: Duration?
    /// The keys down at their device's open and not up since, with when they were seen.
    private var downAtOpen: [Slot: (device: InputDeviceInfo, since: Duration)] = [:]

    /// One key of one device.
    private struct Slot: Hashable {
        var node: String
        var key: UInt16
    }

    init(limits: Limits) {
        self.limits = limits
    }

    /// Whether `code` is a key a person presses to be learned: not a mouse's, a joystick's or a
    /// touchscreen's button (BTN_MISC to BTN_GEAR_UP, BTN_TRIGGER_HAPPY and up), which a hand on a mouse
    /// would otherwise teach.
    static func isLearnable(_ code: UInt16) -> Bool {
        code != 0 && !(0x100...0x15f).contains(code) && code < 0x2c0
    }

    mutating func handle(_ input: Input, at now: Duration) -> [News] {
        switch input {
        case .keyDownAtOpen(let device, let key):
            downAtOpen[Slot(node: device.node, key: key)] = (device, now)
            return []
        case .keyUp(let device, let key):
            downAtOpen[Slot(node: device.node, key: key)] = nil
            return []
        case .tick:
            let due = downAtOpen.filter { now - $0.value.since >= Self.heldAtOpen }.sorted { $0.value.since < $1.value.since }
            return due.flatMap { slot, held in
                downAtOpen[slot] = nil
                return handle(.keyDown(held.device, key: slot.key), at: now)
            }
        case .keyDown(let device, let key):
            downAtOpen[Slot(node: device.node, key: key)] = nil
            guard Self.isLearnable(key), !isOver(at: now) else { return [] }
            if let index = learned.firstIndex(where: { $0.device.node == device.node && $0.key == key }) {
                lastDown[index] = now
                return []
            }
            learned.append(Learned(device: device, key: key))
            lastDown[learned.count - 1] = now
            lastNew = now
            return [.learned(learned[learned.count - 1])]
        case .sinkChanged(let direction):
            let recent = lastDown.filter { now - $0.value <= Self.echoWindow && learned[$0.key].sinkChange == nil }
            if let (index, _) = recent.max(by: { $0.value < $1.value }) {
                learned[index].sinkChange = direction
                return [.desktopReacted(index: index, direction)]
            }
            guard !learned.contains(where: { $0.sinkChange != nil }), !sinkAlone.contains(direction) else { return [] }
            sinkAlone.append(direction)
            lastNew = now
            return [.sinkAlone(direction)]
        }
    }

    /// Takes each learned device as `present` shows it now, where it is still there: a device opened the
    /// moment it appeared had no stable links yet, which udev makes a moment after the node.
    mutating func refresh(_ present: [InputDeviceInfo]) {
        for index in learned.indices {
            if let now = present.first(where: { learned[index].device.isSameDevice($0) }) { learned[index].device = now }
        }
    }

    /// When learning ends, as measured from its start: the first key's wait, else the wait for another,
    /// and never before `echoWindow` after the last key: the desktop's change is seen, and put back.
    var deadline: Duration {
        lastNew.map { $0 + max(limits.next, Self.echoWindow) } ?? limits.first
    }

    /// The next moment something is due with no input, measured from the start: a key down at the open
    /// counts, or learning ends. The listening sleeps until then at most.
    var wakeUp: Duration {
        var moments = [deadline] + downAtOpen.values.map { $0.since + Self.heldAtOpen }
        if let count = limits.count, learned.count + sinkAlone.count >= count, let lastNew { moments.append(lastNew + Self.echoWindow) }
        return moments.min() ?? deadline
    }

    /// Whether learning is over at `now`: the deadline passed, or `count` keys are learned and the last one's
    /// `echoWindow` passed.
    func isOver(at now: Duration) -> Bool {
        if let count = limits.count, learned.count + sinkAlone.count >= count, let lastNew { return now >= lastNew + Self.echoWindow }
        return now >= deadline
    }
}
