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
/// back: nothing is ever given up on, and nothing is retried faster than `retryPace` allows.
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
    public private(set) var devices: [String: InputDevice] = [:]
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

    /// The devices present now, as the shell scanned them: those that match and are new are opened,
    /// those gone are forgotten, their keys released.
    public mutating func scanned(_ present: [InputDeviceInfo], at now: Duration) -> [Action] {
        guard phase != .stopped else { return [] }
        let byNode = Dictionary(present.map { ($0.node, $0) }, uniquingKeysWith: { first, _ in first })
        var actions: [Action] = []
        for (node, device) in devices.sorted(by: { $0.key < $1.key }) where byNode[node].map({ device.info.isSameDevice($0) }) != true {
            // Gone, or its node now belongs to another device.
            actions += forget(node, device, cause: .deviceGone)
        }
        for info in present {
            if var known = devices[info.node] {
                // Its links may be new: udev makes them a moment after the node.
                known.info = info
                devices[info.node] = known
                // A node refused may have been given permissions just now: try it again at once.
                if case .refused = known.life { actions += open(info.node, at: now) }
                continue
            }
            guard let match = configuration.matches.first(where: { $0.matches(info) }) else { continue }
            devices[info.node] = InputDevice(info: info, match: match)
            actions += open(info.node, at: now)
        }
        return actions
    }

    /// The node opened, its descriptor saying it is `identity`, with `keysDown` down on it. A node that
    /// belongs to another device by now is closed and the device the scan saw forgotten: the directory
    /// watch's next scan finds the new one.
    public mutating func opened(_ node: String, as identity: InputDeviceInfo, keysDown: Set<UInt16>) -> [Action] {
        guard var device = devices[node], case .opening(let refusal) = device.life else { return [] }
        guard device.info.isSameDevice(opened: identity) else { return [.close(node)] + forget(node, device, cause: .deviceGone) }
        device.life = .waiting(after: refusal, InputDevice.OpenKeys(down: keysDown))
        devices[node] = device
        return grabIfIdle(node)
    }

    /// The grab of the node took: its keys are the daemon's alone from now on.
    public mutating func grabbed(_ node: String) -> [Action] {
        guard var device = devices[node], case .grabbing(_, let keys) = device.life else { return [] }
        device.life = .grabbed(InputDevice.OpenKeys(dropping: keys.dropping), kernelUps: nil)
        devices[node] = device
        return [.report(.grabbed(device.ref, match: device.match))]
    }

    /// The node could not be opened or grabbed, at `now`, for `problem`. It is closed and tried again
    /// later, and again whenever a scan sees it.
    public mutating func refused(_ node: String, _ problem: DeviceProblem, at now: Duration) -> [Action] {
        guard var device = devices[node] else { return [] }
        let previous = device.life.lastRefusal
        let since = previous?.since ?? now
        let retry = previous.map { min($0.retry * 2, Self.slowestRetry) } ?? Self.firstRetry
        let told = previous?.told ?? false
        let overdue = !told && now - since >= Self.refusalGrace
        let wasOpen = device.isOpen
        device.life = .refused(.init(problem: problem, since: since, retry: retry, due: now + retry, told: told || overdue))
        devices[node] = device
        return (wasOpen ? [.close(node)] : []) + (overdue ? [.report(.refused(device.ref, problem))] : [])
            + [.wakeUp(after: retry)]
    }

    /// A key event of the node: `value` 1 down, 0 up, 2 auto-repeat (which is no press).
    public mutating func key(_ code: UInt16, value: Int32, on node: String) -> [Action] {
        // Keys the kernel let up, followed by more from the device: the device is still there.
        settleKernelReleases(node, before: nil) + keyEvent(code, value: value, on: node)
    }

    /// The kernel itself let `keys` up, in a frame of its own (its SYN_REPORT has the value 1): it does so
    /// just before a device goes away (`input_dev_release_keys`), and on a resume. Which it was shows
    /// only after: the node ends (`gone`), and the keys were released by the device going; or it does
    /// not within `kernelReleaseGrace`, or the device sends more, and they were ups.
    public mutating func kernelReleased(_ keys: Set<UInt16>, on node: String, at now: Duration) -> [Action] {
        guard var device = devices[node], case .grabbed(let open, let ups) = device.life, !open.dropping else { return [] }
        let held = keys.intersection(open.down)
        guard !held.isEmpty else { return [] }
        let earlier = ups?.keys ?? []
        device.life = .grabbed(open, kernelUps: .init(keys: earlier.union(held), due: now + Self.kernelReleaseGrace))
        devices[node] = device
        return [.wakeUp(after: Self.kernelReleaseGrace)]
    }

    /// Takes the keys the kernel let up for ups, if their grace ended before `now` (or at once for nil).
    private mutating func settleKernelReleases(_ node: String, before now: Duration?) -> [Action] {
        guard var device = devices[node], case .grabbed(var open, let ups?) = device.life, now.map({ ups.due <= $0 }) ?? true else { return [] }
        open.down.subtract(ups.keys)
        device.life = .grabbed(open, kernelUps: nil)
        devices[node] = device
        return ups.keys.sorted().map { .keyUp($0, device.ref, .keyUp) }
    }

    private mutating func keyEvent(_ code: UInt16, value: Int32, on node: String) -> [Action] {
        guard var device = devices[node], var keys = device.keys, !keys.dropping else { return [] }
        switch device.life {
        case .waiting, .grabbing:
            // Not the daemon's yet: its keys still reach everyone else, so they are no presses.
            if value == 0 { keys.down.remove(code) } else { keys.down.insert(code) }
            device.keys = keys
            devices[node] = device
            return grabIfIdle(node)
        case .grabbed:
            guard value != 2 else { return [] }
            device.lastKey = code
            guard configuration.wants(code) else {
                devices[node] = device
                return []
            }
            if value == 0 {
                keys.down.remove(code)
                device.keys = keys
                devices[node] = device
                return [.keyUp(code, device.ref, .keyUp)]
            }
            keys.down.insert(code)
            device.keys = keys
            devices[node] = device
            return [.keyDown(code, device.ref)]
        case .closed, .opening, .refused:
            return []
        }
    }

    /// The node's client buffer overflowed (SYN_DROPPED): the kernel dropped events for it. Its key
    /// events are ignored until the shell has read all the node had queued (`caughtUp`), and the keys
    /// are read again then.
    ///
    /// Not only until the next SYN_REPORT, as the kernel's documentation says: reading the keys
    /// (EVIOCGKEY) also flushes the key events still queued for this reader (evdev's
    /// `__evdev_flush_queue`), because the state it returns already includes them. Events the shell read
    /// before asking are just as old, so they are dropped too, and the state read is the one that counts.
    public mutating func dropped(_ node: String) -> [Action] {
        devices[node]?.keys?.dropping = true
        return []
    }

    /// The shell read every event the node had queued (it reads whole frames: the kernel hands out none
    /// before its SYN_REPORT). After dropped events, the keys are read again now.
    public mutating func caughtUp(_ node: String) -> [Action] {
        guard devices[node]?.keys?.dropping == true else { return [] }
        devices[node]?.keys?.dropping = false
        return [.readKeys(node)]
    }

    /// The keys down on the node, read again after dropped events: the downs and ups missed are told now.
    public mutating func keysRead(_ node: String, _ keys: Set<UInt16>) -> [Action] {
        guard var device = devices[node] else { return [] }
        switch device.life {
        case .waiting:
            device.keys?.down = keys
            devices[node] = device
            return grabIfIdle(node)
        case .grabbed(let open, _):
            let wanted = keys.filter(configuration.wants)
            let ups = open.down.subtracting(wanted).sorted().map { Action.keyUp($0, device.ref, .keyUp) }
            let downs = wanted.subtracting(open.down).sorted().map { Action.keyDown($0, device.ref) }
            device.keys?.down = wanted
            devices[node] = device
            return ups + downs
        case .closed, .opening, .grabbing, .refused:
            return []
        }
    }

    /// Reading the node failed because its device is gone (ENODEV): forgotten, its keys released. A
    /// later scan finds it again if it comes back.
    public mutating func gone(_ node: String) -> [Action] {
        guard let device = devices[node] else { return [] }
        return forget(node, device, cause: .deviceGone)
    }

    /// The time is `now`, as a `wakeUp` asked: keys the kernel let up whose grace is over are ups, and
    /// refused nodes that are due are tried again. Asks again for what is due later, so that a shell may
    /// keep one timer for the earliest wake-up asked for.
    public mutating func wakeUp(at now: Duration) -> [Action] {
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

    /// Lets every device go until `resume`, their keys released: the keys act normally meanwhile.
    public mutating func pause() -> [Action] {
        guard phase == .taking else { return [] }
        phase = .paused
        return letGo(cause: .paused)
    }

    /// Takes the devices again.
    public mutating func resume(at now: Duration) -> [Action] {
        guard phase == .paused else { return [] }
        phase = .taking
        return devices.keys.sorted().flatMap { open($0, at: now) }
    }

    /// Lets every device go for good.
    public mutating func shutdown() -> [Action] {
        guard phase != .stopped else { return [] }
        phase = .stopped
        return letGo(cause: .stopped)
    }

    // MARK: - One device

    private mutating func open(_ node: String, at now: Duration) -> [Action] {
        guard var device = devices[node], phase == .taking else { return [] }
        switch device.life {
        case .opening, .waiting, .grabbing, .grabbed: return []
        case .closed, .refused: break
        }
        device.life = .opening(after: device.life.lastRefusal)
        devices[node] = device
        return [.open(node)]
    }

    /// Grabs the node once no key on it is down.
    private mutating func grabIfIdle(_ node: String) -> [Action] {
        guard var device = devices[node], case .waiting(let refusal, let keys) = device.life, keys.down.isEmpty else { return [] }
        device.life = .grabbing(after: refusal, keys)
        devices[node] = device
        return [.grab(node)]
    }

    /// Closes the node, releasing its keys down, and forgets it.
    private mutating func forget(_ node: String, _ device: InputDevice, cause: ReleaseCause) -> [Action] {
        devices[node] = nil
        return release(device, cause: cause) + (device.isOpen ? [.close(node)] : []) + [.report(.gone(device.ref))]
    }

    /// Closes every open node, releasing its keys down; they stay known, to be opened again.
    private mutating func letGo(cause: ReleaseCause) -> [Action] {
        devices.keys.sorted().flatMap { node -> [Action] in
            guard var device = devices[node] else { return [] }
            let actions = release(device, cause: cause) + (device.isOpen ? [.close(node)] : [])
            device.life = .closed
            devices[node] = device
            return actions
        }
    }

    private func release(_ device: InputDevice, cause: ReleaseCause) -> [Action] {
        guard case .grabbed(let open, _) = device.life else { return [] }
        return open.down.sorted().map { .keyUp($0, device.ref, cause) }
    }
}

/// What happened to a device, for the log.
public enum InputReport: Hashable, Sendable {
    /// The device is grabbed: its keys are presses now.
    case grabbed(DeviceRef, match: DeviceMatch)
    /// The device has stayed refused past `InputSource.refusalGrace`.
    case refused(DeviceRef, DeviceProblem)
    /// The device went away.
    case gone(DeviceRef)
}
