import GuardProtocol

/// The keys down on grabbed devices: pairs each release with its press, and finds holds and double
/// presses in their real downs and ups, as the platform APIs that give key phases do
/// (AVCaptureEventInteraction's began and ended, Android's onKeyDown and onKeyUp).
///
/// A key still down `holdDelay` after its down is held (`hold_start`); its release ends the hold
/// (`hold_end`, with the release's cause). A down that comes within `doubleWindow` of the last down of
/// the same key on the same device, that one released without a hold and not itself the second of a
/// double, makes a double press, told at once: the down is real, so nothing is left to wait for.
struct KeysDown: Hashable, Sendable {
    /// One key of one device.
    struct Slot: Hashable, Sendable {
        var device: DeviceRef
        var key: UInt16
    }

    /// A key down now.
    struct Down: Hashable, Sendable {
        var seq: UInt64
        var direction: Direction?
        var at: Duration
        var holding = false
    }

    /// A key's last short press: the first of a double press, if the next down comes soon enough.
    struct Tap: Hashable, Sendable {
        var at: Duration
    }

    var thresholds: GestureDetector.Thresholds
    private(set) var down: [Slot: Down] = [:]
    private var taps: [Slot: Tap] = [:]

    init(thresholds: GestureDetector.Thresholds) {
        self.thresholds = thresholds
    }

    /// `press`, of `slot`, went down at `now`; returns a double press it completes, and when to look for
    /// a hold. A down of a key already down (a down lost to SYN_DROPPED, read back with EVIOCGKEY) is
    /// the same press.
    mutating func pressed(_ press: Press, slot: Slot, at now: Duration) -> (gestures: [Gesture], wakeUp: Duration?) {
        guard down[slot] == nil else { return ([], nil) }
        down[slot] = Down(seq: press.seq, direction: press.direction, at: now)
        var gestures: [Gesture] = []
        if let tap = taps.removeValue(forKey: slot), now - tap.at <= thresholds.doubleWindow {
            gestures.append(gesture(.double, slot, down[slot]!, presses: 2))
        } else {
            taps[slot] = Tap(at: now)
        }
        return (gestures, thresholds.holdDelay)
    }

    /// `slot` is no longer down, for `cause`, at `now`: its release, and the end of its hold if it was
    /// held. Nil when it was not down.
    mutating func released(_ slot: Slot, cause: ReleaseCause, at now: Duration) -> (release: Release, gestures: [Gesture])? {
        guard let key = down.removeValue(forKey: slot) else { return nil }
        let release = Release(seq: key.seq, direction: key.direction, key: slot.key, device: slot.device, cause: cause, held: now - key.at)
        guard key.holding else { return (release, []) }
        taps[slot] = nil
        var end = gesture(.holdEnd, slot, key, presses: 1)
        end.cause = cause
        return (release, [end])
    }

    /// Looks again at `now`: a key down for `holdDelay` is held. Returns when to look again, if a key
    /// down may still become held.
    mutating func wakeUp(at now: Duration) -> (gestures: [Gesture], wakeUp: Duration?) {
        var gestures: [Gesture] = []
        var next: Duration?
        for (slot, key) in down.sorted(by: { $0.value.seq < $1.value.seq }) where !key.holding {
            let due = key.at + thresholds.holdDelay
            if due <= now {
                down[slot]?.holding = true
                taps[slot] = nil
                gestures.append(gesture(.holdStart, slot, key, presses: 1))
            } else {
                next = min(next ?? due - now, due - now)
            }
        }
        taps = taps.filter { now - $0.value.at <= thresholds.doubleWindow }
        return (gestures, next)
    }

    private func gesture(_ kind: GestureKind, _ slot: Slot, _ key: Down, presses: Int) -> Gesture {
        Gesture(kind: kind, direction: key.direction, key: slot.key, seq: key.seq, presses: presses, origin: .device(slot.device))
    }
}
