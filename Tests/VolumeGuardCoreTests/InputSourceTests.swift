import GuardProtocol
import Testing

@testable import VolumeGuardCore

/// A shutter remote that is two devices, as the AB Shutter3 is, and a device that nobody configured.
enum Remote {
    static let keyboard = InputDeviceInfo(node: "/dev/input/event5", name: "AB Shutter3 Keyboard", vendor: 0x2717, product: 0x0040, keys: [28])
    static let consumer = InputDeviceInfo(
        node: "/dev/input/event6", name: "AB Shutter3 Consumer Control", vendor: 0x2717, product: 0x0040, keys: [115, 114])
    static let laptop = InputDeviceInfo(node: "/dev/input/event2", name: "AT Translated Set 2 keyboard", vendor: 1, product: 1, keys: [113, 114, 115, 28])
    static let lookalike = InputDeviceInfo(node: "/dev/input/event7", name: "AB Shutter30", vendor: 0x1234, product: 0x0040, keys: [115])
    static var consumerRef: DeviceRef { DeviceRef(name: consumer.name, node: consumer.node) }
}

@Suite("Input devices: the input source's machine")
struct InputSourceTests {
    var source = InputSource(configuration: .init(matches: [DeviceMatch("AB Shutter3")!], keys: [28]))

    /// Scans `present` and performs the opens and grabs it asks for, as the daemon's shell does with the
    /// `GuardMachine` that holds this source, on its `MachineLoop` (its opens all succeed).
    mutating func take(_ present: [InputDeviceInfo], keysDown: Set<UInt16> = []) -> [GuardMachine.Effect] {
        var machine = GuardMachine(configuration: .init(source: .input, input: source.configuration))
        machine.input = source
        let loop = MachineLoop(machine)
        var done: [GuardMachine.Effect] = []
        loop.handle(.device(.scanned(present)), at: { .zero }) { effect in
            done.append(effect)
            switch effect {
            case .open(let node): return [.device(.opened(node, as: present.first { $0.node == node }!, keysDown: keysDown))]
            case .grab(let node): return [.device(.grabbed(node))]
            default: return []
            }
        }
        source = loop.machine.input!
        return done
    }

    @Test("A remote named once is taken whole: both of its devices are opened and grabbed; others are never opened")
    mutating func matching() {
        let done = take([Remote.laptop, Remote.keyboard, Remote.consumer, Remote.lookalike])
        #expect(done.filter { if case .open = $0 { true } else { false } } == [.open(Remote.keyboard.node), .open(Remote.consumer.node)])
        #expect(source.devices.values.map(\.state).sorted { $0.rawValue < $1.rawValue } == [.grabbed, .grabbed])
        #expect(source.devices[Remote.laptop.node] == nil)
        #expect(source.devices[Remote.lookalike.node] == nil)
    }

    @Test("Two identical remotes: an address takes the one it names, both of its devices, and never the other")
    func addressTakesOneTwin() {
        func remote(_ address: String, nodes: (Int, Int)) -> [InputDeviceInfo] {
            [(Remote.keyboard, nodes.0), (Remote.consumer, nodes.1)].map { part, node in
                var device = part
                device.node = "/dev/input/event\(node)"
                device.uniq = address
                return device
            }
        }
        let wanted = remote("2a:07:98:10:34:9c", nodes: (5, 6))
        let twin = remote("2a:07:98:10:34:9d", nodes: (7, 8))
        var source = InputSource(configuration: .init(matches: [DeviceMatch("2A:07:98:10:34:9C")!], keys: [28]))
        let opened = source.handle(.scanned(twin + wanted), at: .zero)
        #expect(opened == wanted.map { .open($0.node) })
        #expect(source.handle(.opened(wanted[0].node, as: twin[0], keysDown: []), at: .zero).first == .close(wanted[0].node), "a twin on its node is not it")
    }

    @Test("A device is grabbed only once no key on it is down, so a key held then is not left stuck for others")
    mutating func grabWaitsForKeysUp() {
        let done = take([Remote.consumer], keysDown: [115])
        #expect(!done.contains(.grab(Remote.consumer.node)))
        #expect(source.devices[Remote.consumer.node]?.state == .waiting)
        #expect(source.handle(.key(115, value: 2, on: Remote.consumer.node), at: .zero).isEmpty, "a repeat of the held key changes nothing")
        #expect(source.handle(.key(115, value: 0, on: Remote.consumer.node), at: .zero) == [.grab(Remote.consumer.node)])
        #expect(source.handle(.grabbed(Remote.consumer.node), at: .zero) == [.report(.grabbed(Remote.consumerRef, match: .name("AB Shutter3")))])
    }

    @Test("A down is a press and an up a release; repeats are no presses; keys nobody wants are swallowed but no press")
    mutating func keys() {
        _ = take([Remote.consumer, Remote.keyboard])
        let node = Remote.consumer.node
        #expect(source.handle(.key(115, value: 1, on: node), at: .zero) == [.keyDown(115, Remote.consumerRef)])
        #expect(source.handle(.key(115, value: 2, on: node), at: .zero).isEmpty)
        #expect(source.handle(.key(115, value: 0, on: node), at: .zero) == [.keyUp(115, Remote.consumerRef, .keyUp)])
        #expect(source.handle(.key(30, value: 1, on: node), at: .zero).isEmpty, "KEY_A is not configured")
        #expect(source.devices[node]?.lastKey == 30)
        let keyboard = DeviceRef(name: Remote.keyboard.name, node: Remote.keyboard.node)
        #expect(source.handle(.key(28, value: 1, on: Remote.keyboard.node), at: .zero) == [.keyDown(28, keyboard)], "KEY_ENTER is configured")
    }

    @Test("A device that vanishes during a hold releases the key for that reason, and is taken again when it comes back")
    mutating func goneDuringHold() {
        _ = take([Remote.consumer])
        _ = source.handle(.key(115, value: 1, on: Remote.consumer.node), at: .zero)
        let gone = source.handle(.gone(Remote.consumer.node), at: .zero)
        #expect(gone == [.keyUp(115, Remote.consumerRef, .deviceGone), .close(Remote.consumer.node), .report(.gone(Remote.consumerRef))])
        #expect(source.handle(.scanned([]), at: .seconds(1)).isEmpty, "already forgotten")
        let back = take([Remote.consumer])
        #expect(back.contains(.grab(Remote.consumer.node)))
    }

    @Test("Keys the kernel lets up just before the device goes are released by its going")
    mutating func kernelReleaseThenGone() {
        let node = Remote.consumer.node
        _ = take([Remote.consumer])
        _ = source.handle(.key(115, value: 1, on: node), at: .zero)
        #expect(source.handle(.kernelReleased([115], on: node), at: .seconds(1)) == [.wakeUp(after: InputSource.kernelReleaseGrace)])
        #expect(source.handle(.gone(node), at: .zero).first == .keyUp(115, Remote.consumerRef, .deviceGone))
    }

    /// Takes the shutter's consumer part, holds KEY_VOLUMEUP on it, and has the kernel let it up at 1 s;
    /// returns the node.
    mutating func heldThenLetUpByTheKernel() -> String {
        let node = Remote.consumer.node
        _ = take([Remote.consumer])
        _ = source.handle(.key(115, value: 1, on: node), at: .zero)
        _ = source.handle(.kernelReleased([115], on: node), at: .seconds(1))
        return node
    }

    @Test("Keys the kernel lets up while the device stays (a resume) are ups, after the grace or at the device's next event")
    mutating func kernelReleaseThenStays() {
        let node = heldThenLetUpByTheKernel()
        #expect(
            source.handle(.wakeUp, at: .seconds(1) + InputSource.kernelReleaseGrace - .milliseconds(1)) == [.wakeUp(after: .milliseconds(1))],
            "not yet: it asks again for the rest of the grace")
        #expect(source.handle(.wakeUp, at: .seconds(1) + InputSource.kernelReleaseGrace) == [.keyUp(115, Remote.consumerRef, .keyUp)])
        _ = source.handle(.key(114, value: 1, on: node), at: .zero)
        _ = source.handle(.kernelReleased([114], on: node), at: .seconds(5))
        #expect(source.handle(.key(115, value: 1, on: node), at: .zero) == [.keyUp(114, Remote.consumerRef, .keyUp), .keyDown(115, Remote.consumerRef)])
        #expect(source.handle(.kernelReleased([30], on: node), at: .seconds(6)).isEmpty, "a key not down")
    }

    @Test("Keys the kernel let up before a pause are released by the pause, once")
    mutating func kernelReleaseThenPause() {
        let node = heldThenLetUpByTheKernel()
        #expect(source.handle(.pause, at: .zero) == [.keyUp(115, Remote.consumerRef, .paused), .close(node)])
        #expect(source.handle(.wakeUp, at: .seconds(1) + InputSource.kernelReleaseGrace).isEmpty, "no second release")
    }

    @Test("A link udev makes after the node changes nothing: the device stays grabbed, its key still down")
    mutating func linkMadeLater() {
        let node = Remote.consumer.node
        _ = take([Remote.consumer])
        _ = source.handle(.key(115, value: 1, on: node), at: .zero)
        var linked = Remote.consumer
        linked.stablePaths = ["/dev/input/by-id/usb-AB_Shutter3-event-if01"]
        #expect(source.handle(.scanned([linked]), at: .seconds(1)).isEmpty)
        #expect(source.devices[node]?.info.stablePaths == linked.stablePaths)
        #expect(source.handle(.key(115, value: 0, on: node), at: .zero) == [.keyUp(115, Remote.consumerRef, .keyUp)])
    }

    @Test("A device missing from a scan is gone; a node taken by another device is a new device")
    mutating func scanTellsComingAndGoing() {
        _ = take([Remote.consumer])
        let replaced = InputDeviceInfo(node: Remote.consumer.node, name: "Some Mouse", vendor: 9, product: 9, keys: [272])
        let actions = source.handle(.scanned([replaced]), at: .seconds(1))
        #expect(actions == [.close(Remote.consumer.node), .report(.gone(Remote.consumerRef))])
        #expect(source.devices.isEmpty)
    }

    @Test("A node it may not open is retried, faster at first, forever; the log hears of it once it lasts past the grace")
    mutating func refusedIsRetried() {
        let node = Remote.consumer.node
        #expect(source.handle(.scanned([Remote.consumer]), at: .zero) == [.open(node)])
        var now = Duration.zero
        var waits: [Duration] = []
        var told = 0
        for _ in 0..<8 {
            let actions = source.handle(.refused(node, error: "permission denied", fix: "see devices --udev-rule"), at: now)
            told += actions.count { if case .report = $0 { true } else { false } }
            guard case .wakeUp(let wait)? = actions.last else { Issue.record("no retry"); return }
            waits.append(wait)
            #expect(source.devices[node]?.state == .refused)
            #expect(source.handle(.wakeUp, at: now + wait - .milliseconds(1)) == [.wakeUp(after: .milliseconds(1))], "not before it is due")
            now += wait
            #expect(source.handle(.wakeUp, at: now) == [.open(node)])
        }
        #expect(waits.first == InputSource.firstRetry)
        #expect(waits.last == InputSource.slowestRetry)
        #expect(zip(waits, waits.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(told == 1)
        #expect(source.handle(.opened(node, as: Remote.consumer, keysDown: []), at: .zero) == [.grab(node)])
    }

    @Test("A node that belongs to another device by the time it is opened is closed, and the device the scan saw forgotten")
    mutating func reusedNode() {
        let node = Remote.consumer.node
        _ = source.handle(.scanned([Remote.consumer]), at: .zero)
        var other = Remote.lookalike
        other.node = node
        #expect(source.handle(.opened(node, as: other, keysDown: []), at: .zero) == [.close(node), .report(.gone(Remote.consumerRef))])
        #expect(source.devices[node] == nil)
        #expect(source.handle(.scanned([Remote.consumer]), at: .milliseconds(10)) == [.open(node)], "the next scan takes it again if it matches")
    }

    @Test("A scan that sees a refused node tries it at once: udev may have just given it its permissions")
    mutating func scanRetriesRefused() {
        let node = Remote.consumer.node
        _ = source.handle(.scanned([Remote.consumer]), at: .zero)
        _ = source.handle(.refused(node, error: "permission denied", fix: ""), at: .zero)
        #expect(source.handle(.scanned([Remote.consumer]), at: .milliseconds(10)) == [.open(node)])
    }

    @Test("A grab another program holds is refused and retried; the open node is closed meanwhile")
    mutating func busyGrab() {
        let node = Remote.consumer.node
        _ = source.handle(.scanned([Remote.consumer]), at: .zero)
        #expect(source.handle(.opened(node, as: Remote.consumer, keysDown: []), at: .zero) == [.grab(node)])
        let actions = source.handle(.refused(node, error: "another program grabbed it", fix: ""), at: .zero)
        #expect(actions.first == .close(node))
    }

    @Test("Grabs refused again and again, each after an open that took, back off and reach the log once")
    mutating func busyGrabBacksOff() {
        let node = Remote.consumer.node
        _ = source.handle(.scanned([Remote.consumer]), at: .zero)
        var now = Duration.zero
        var waits: [Duration] = []
        var told = 0
        for _ in 0..<8 {
            #expect(source.handle(.opened(node, as: Remote.consumer, keysDown: []), at: .zero) == [.grab(node)])
            let actions = source.handle(.refused(node, error: "another program grabbed it", fix: ""), at: now)
            told += actions.count { if case .report = $0 { true } else { false } }
            guard case .wakeUp(let wait)? = actions.last else { Issue.record("no retry"); return }
            waits.append(wait)
            now += wait
            #expect(source.handle(.wakeUp, at: now) == [.open(node)])
        }
        #expect(waits.last == InputSource.slowestRetry)
        #expect(told == 1)
        #expect(source.handle(.opened(node, as: Remote.consumer, keysDown: []), at: .zero) == [.grab(node)])
        #expect(source.handle(.grabbed(node), at: .zero).count == 1)
        #expect(source.devices[node]?.refusal == nil, "a grab ends the refusals")
    }

    @Test("Dropped events: the keys read along with them are stale, the keys are read again once all are read, and the downs and ups missed told")
    mutating func dropped() {
        let node = Remote.consumer.node
        _ = take([Remote.consumer])
        _ = source.handle(.key(115, value: 1, on: node), at: .zero)
        #expect(source.handle(.caughtUp(node), at: .zero).isEmpty, "nothing dropped, nothing to read again")
        _ = source.handle(.dropped(node), at: .zero)
        #expect(source.handle(.key(114, value: 1, on: node), at: .zero).isEmpty, "dropped")
        #expect(source.handle(.key(114, value: 0, on: node), at: .zero).isEmpty, "read with the drop: older than the state read next")
        #expect(source.handle(.caughtUp(node), at: .zero) == [.readKeys(node)])
        #expect(source.handle(.keysRead(node, [114, 30]), at: .zero) == [.keyUp(115, Remote.consumerRef, .keyUp), .keyDown(114, Remote.consumerRef)])
        #expect(source.handle(.key(114, value: 0, on: node), at: .zero) == [.keyUp(114, Remote.consumerRef, .keyUp)], "events after it count again")
    }

    @Test("Paused, every device is let go, its keys released; resumed, taken again; stopped, for good")
    mutating func pauseResumeStop() {
        let node = Remote.consumer.node
        _ = take([Remote.consumer])
        _ = source.handle(.key(115, value: 1, on: node), at: .zero)
        #expect(source.handle(.pause, at: .zero) == [.keyUp(115, Remote.consumerRef, .paused), .close(node)])
        #expect(source.devices[node]?.state == .paused)
        #expect(source.handle(.scanned([Remote.consumer, Remote.keyboard]), at: .zero).isEmpty, "nothing opened while paused")
        #expect(source.handle(.resume, at: .zero) == [.open(Remote.keyboard.node), .open(node)])
        _ = source.handle(.opened(node, as: Remote.consumer, keysDown: []), at: .zero)
        _ = source.handle(.grabbed(node), at: .zero)
        #expect(source.handle(.shutdown, at: .zero) == [.close(node)])
        #expect(source.phase == .stopped)
        #expect(source.handle(.resume, at: .zero).isEmpty)
    }
}
