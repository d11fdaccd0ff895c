import GuardProtocol

/// The input devices the daemon takes keys from, as a pure value: fed what the shell saw (the devices
/// present, a node opened or refused, key events, the time), it returns what to do with the nodes and
/// which keys went down and up. The shell owns the file descriptors and the directory watch, and hands
/// the keys to the `PressPipeline`.
///
/// Each device node that a configured `DeviceMatch` meets lives through `InputDevice.Life`: opened,
/// grabbed once no key on it is down (a key held at the grab would stay down for everyone else),
/// refused and retried for as long as it stays present (udev gives a new node its permissions a moment
/// after it appears), and forgotten when it goes, its keys released. It is found again when it comes
/// back: nothing is ever given up on, and nothing is retried faster than `firstRetry` allows.
///
/// Each `Event` is taken by `handle`; a node's life is in InputSource+Nodes.swift, its key events in
/// InputSource+Keys.swift.
public struct InputSource: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// The devices to take, as configured.
        public var matches: [DeviceMatch]
        /// Keys besides the volume keys whose downs are presses.
        public var keys: Set<UInt16>

        public init(matches: [DeviceMatch] = [], keys: Set<UInt16> = []) {
            self.matches = matches
            self.keys = keys
        }

        /// Whether a down of `key` is a press.
        func wants(_ key: UInt16) -> Bool {
            Direction(key: key) != nil || keys.contains(key)
        }
    }

    /// What the shell is told to do, in order.
    public enum Action: Hashable, Sendable {
        /// Open the node (read-only, non-blocking), read which keys are down (EVIOCGKEY) and report
        /// `opened` or `refused`; then read its events as they come.
        case open(String)
        /// Grab the node (EVIOCGRAB) and report `grabbed` or `refused`.
        case grab(String)
        /// Close the node (a grab ends with it).
        case close(String)
        /// Read which keys are down again (EVIOCGKEY) and report `keysRead`: events were dropped. The
        /// kernel flushes the node's queued key events then.
        case readKeys(String)
        /// A key went down on a grabbed device: a press.
        case keyDown(UInt16, DeviceRef)
        /// A key of a grabbed device is no longer down.
        case keyUp(UInt16, DeviceRef, ReleaseCause)
        /// Feed `wakeUp` after this long: a refused node is due to be tried again, or keys the kernel let up
        /// to be taken for ups. Earlier calls do no harm: each asks again for what is still due.
        case wakeUp(after: Duration)
        case report(InputReport)
    }

    /// The first retry of a refused node, doubled at each refusal up to `slowestRetry`.
    public static let firstRetry: Duration = .milliseconds(250)
    public static let slowestRetry: Duration = .seconds(2)
    /// How long the keys the kernel itself let up (`kernelReleased`) wait for the device's end before
    /// they are taken for ups: a device going away ends its node just after them.
    public static let kernelReleaseGrace: Duration = .seconds(1)
    /// How long a node may stay refused before the log says so: udev applies a new node's permissions
    /// within about a second, and that wait is no error.
    public static let refusalGrace: Duration = .seconds(2)

    public private(set) var configuration: Configuration
    /// The matching devices present, by node.
    public internal(set) var devices: [String: InputDevice] = [:]
    /// Whether the devices are taken.
    public enum Phase: Hashable, Sendable {
        case taking
        /// Left to everyone else, closed, until `resume` opens them again.
        case paused
        /// Left to everyone else for good: the daemon is stopping.
        case stopped
    }

    public private(set) var phase = Phase.taking

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// What the shell saw or did, and the time's passing: the one way into the source.
    public enum Event: Hashable, Sendable {
        /// The devices present now, as the shell scanned them: those that match and are new are opened,
        /// those gone are forgotten, their keys released.
        case scanned([InputDeviceInfo])
        /// The node opened, its descriptor saying it is `as`, with `keysDown` down on it. A node that
        /// belongs to another device by now is closed and the device the scan saw forgotten: the
        /// directory watch's next scan finds the new one.
        case opened(String, as: InputDeviceInfo, keysDown: Set<UInt16>)
        /// The grab of the node took: its keys are the daemon's alone from now on.
        case grabbed(String)
        /// The node could not be opened or grabbed: `error` says why and `fix` what to do. It is closed
        /// and tried again later, and again whenever a scan sees it.
        case refused(String, error: String, fix: String)
        /// A key event of the node: `value` 1 down, 0 up, 2 auto-repeat (which is no press).
        case key(UInt16, value: Int32, on: String)
        /// The node's client buffer overflowed (SYN_DROPPED): the kernel dropped events for it. Its key
        /// events are ignored until the shell has read all the node had queued (`caughtUp`), and the
        /// keys are read again then.
        ///
        /// Not only until the next SYN_REPORT, as the kernel's documentation says: reading the keys
        /// (EVIOCGKEY) also flushes the key events still queued for this reader (evdev's
        /// `__evdev_flush_queue`), because the state it returns already includes them. Events the shell
        /// read before asking are just as old, so they are dropped too, and the state read is the one
        /// that counts.
        case dropped(String)
        /// The kernel itself let the keys up, in a frame of its own (its SYN_REPORT has the value 1): it
        /// does so just before a device goes away (`input_dev_release_keys`), and on a resume. Which it
        /// was shows only after: the node ends (`gone`), and the keys were released by the device going;
        /// or it does not within `kernelReleaseGrace`, or the device sends more, and they were ups.
        case kernelReleased(Set<UInt16>, on: String)
        /// The shell read every event the node had queued (it reads whole frames: the kernel hands out
        /// none before its SYN_REPORT). After dropped events, the keys are read again now.
        case caughtUp(String)
        /// The keys down on the node, read again after dropped events: the downs and ups missed are told
        /// now.
        case keysRead(String, Set<UInt16>)
        /// Reading the node failed because its device is gone (ENODEV): forgotten, its keys released. A
        /// later scan finds it again if it comes back.
        case gone(String)
        /// The time has come that a `wakeUp` asked for: keys the kernel let up whose grace is over are
        /// ups, and refused nodes that are due are tried again. Asks again for what is due later, so
        /// that a shell may keep one timer for the earliest wake-up asked for.
        case wakeUp
        /// Let every device go until `resume`, their keys released: the keys act normally meanwhile.
        case pause
        /// Take the devices again.
        case resume
        /// Let every device go for good.
        case shutdown
    }

    /// Takes `event`, which happened at `now`; returns what the shell is to do, in order.
    public mutating func handle(_ event: Event, at now: Duration) -> [Action] {
        switch event {
        case .scanned(let present): scanned(present, at: now)
        case .opened(let node, let identity, let keysDown): opened(node, as: identity, keysDown: keysDown)
        case .grabbed(let node): grabbed(node)
        case .refused(let node, let error, let fix): refused(node, error: error, fix: fix, at: now)
        case .key(let code, let value, let node): key(code, value: value, on: node)
        case .dropped(let node): dropped(node)
        case .kernelReleased(let keys, let node): kernelReleased(keys, on: node, at: now)
        case .caughtUp(let node): caughtUp(node)
        case .keysRead(let node, let keys): keysRead(node, keys)
        case .gone(let node): gone(node)
        case .wakeUp: wakeUp(at: now)
        case .pause: pause()
        case .resume: resume(at: now)
        case .shutdown: shutdown()
        }
    }

    // MARK: - The source as a whole

    private mutating func wakeUp(at now: Duration) -> [Action] {
        var actions = devices.keys.sorted().flatMap { settleKernelReleases($0, before: now) }
        if phase == .taking {
            actions += devices.keys.sorted().flatMap { node -> [Action] in
                guard let refusal = devices[node]?.refusal, refusal.due <= now else { return [] }
                return open(node, at: now)
            }
        }
        let later = devices.values.flatMap { [$0.kernelUps?.due, phase == .taking ? $0.refusal?.due : nil] }.compactMap { $0 }
        return actions + (later.min().map { [.wakeUp(after: $0 - now)] } ?? [])
    }

    private mutating func pause() -> [Action] {
        guard phase == .taking else { return [] }
        phase = .paused
        return letGo(cause: .paused)
    }

    private mutating func resume(at now: Duration) -> [Action] {
        guard phase == .paused else { return [] }
        phase = .taking
        return devices.keys.sorted().flatMap { open($0, at: now) }
    }

    private mutating func shutdown() -> [Action] {
        switch phase {
        case .taking, .paused:
            phase = .stopped
            return letGo(cause: .stopped)
        case .stopped:
            return []
        }
    }
}
