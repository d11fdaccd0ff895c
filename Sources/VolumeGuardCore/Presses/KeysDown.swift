import GuardProtocol

/// The keys down on grabbed devices: pairs each release with its press, and finds holds, double presses
/// and taps in their real downs and ups, as the platform APIs that give key phases do
/// (AVCaptureEventInteraction's began and ended, Android's onKeyDown and onKeyUp).
///
/// A key still down `holdDelay` after its down is held (`hold_start`); its release ends the hold
/// (`hold_end`, with the release's cause). A down that comes within `doubleWindow` of the last down of
/// the same key on the same device, that one released without a hold and not itself the second of a
/// double, makes a double press, told at once: the down is real, so nothing is left to wait for. A down
/// that became neither is a tap once its key is up and `doubleWindow` has passed since it: told then, at
/// the later of the two, so that an action on taps alone never runs for a hold's or a double's press.
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

    /// A key's last short press, not yet told: the first of a double press if the next down comes soon
    /// enough, else a tap.
    struct Tap: Hashable, Sendable {
        var down: Down
        /// Its key came up (a key-up, not a device that went): the tap is told once the window passes.
        var released = false
    }

    var thresholds: GestureDetector.Thresholds
    private(set) var down: [Slot: Down] = [:]
    private var taps: [Slot: Tap] = [:]

    init(thresholds: GestureDetector.Thresholds) {
        self.thresholds = thresholds
    }

    /// `press`, of `slot`, went down at `now`; returns a double press it completes (or the tap before it,
    /// if its wake-up is overdue), and when to look for a hold. A down of a key already down (a down lost
    /// to SYN_DROPPED, read back with EVIOCGKEY) is the same press.
    mutating func pressed(_ press: Press, slot: Slot, at now: Duration) -> (gestures: [Gesture], wakeUp: Duration?) {
        guard down[slot] == nil else { return ([], nil) }
        let key = Down(seq: press.seq, direction: press.direction, at: now)
        down[slot] = key
        guard let first = taps.removeValue(forKey: slot) else {
            taps[slot] = Tap(down: key)
            return ([], thresholds.holdDelay)
        }
        if now - first.down.at <= thresholds.doubleWindow {
            return ([gesture(.double, slot, key, presses: 2)], thresholds.holdDelay)
        }
        taps[slot] = Tap(down: key)
        return ([gesture(.tap, slot, first.down, presses: 1)], thresholds.holdDelay)
    }

    /// `slot` is no longer down, for `cause`, at `now`: its release, the end of its hold if it was held,
    /// or its tap if the double window has passed already (else when to tell it). Nil when it was not
    /// down. A key let go for another cause than its key-up (its device went, the daemon paused or
    /// stopped) is no tap: nobody finished that press.
    mutating func released(_ slot: Slot, cause: ReleaseCause, at now: Duration) -> (release: Release, gestures: [Gesture], wakeUp: Duration?)? {
        guard let key = down.removeValue(forKey: slot) else { return nil }
        let release = Release(seq: key.seq, direction: key.direction, key: slot.key, device: slot.device, cause: cause, held: now - key.at)
        if key.holding {
            var end = gesture(.holdEnd, slot, key, presses: 1)
            end.cause = cause
            return (release, [end], nil)
        }
        guard taps[slot]?.down.seq == key.seq else { return (release, [], nil) }
        guard cause == .keyUp else {
            taps[slot] = nil
            return (release, [], nil)
        }
        let due = key.at + thresholds.doubleWindow
        guard due > now else {
            taps[slot] = nil
            return (release, [gesture(.tap, slot, key, presses: 1)], nil)
        }
        taps[slot]?.released = true
        return (release, [], due - now)
    }

    /// Looks again at `now`: a key down for `holdDelay` is held, and a released press whose double window
    /// has passed is a tap. Returns when to look again, if a key down may still become held or a tap is
    /// still to be told.
    mutating func wakeUp(at now: Duration) -> (gestures: [Gesture], wakeUp: Duration?) {
        var found: [(seq: UInt64, gesture: Gesture)] = []
        var dues: [Duration] = []
        for (slot, key) in down where !key.holding {
            let due = key.at + thresholds.holdDelay
            if due <= now {
                down[slot]?.holding = true
                taps[slot] = nil
                found.append((key.seq, gesture(.holdStart, slot, key, presses: 1)))
            } else {
                dues.append(due)
            }
        }
        for (slot, tap) in taps where tap.released {
            let due = tap.down.at + thresholds.doubleWindow
            if due <= now {
                taps[slot] = nil
                found.append((tap.down.seq, gesture(.tap, slot, tap.down, presses: 1)))
            } else {
                dues.append(due)
            }
        }
        return (found.sorted { $0.seq < $1.seq }.map(\.gesture), dues.min().map { $0 - now })
    }

    private func gesture(_ kind: GestureKind, _ slot: Slot, _ key: Down, presses: Int) -> Gesture {
        Gesture(kind: kind, direction: key.direction, key: slot.key, seq: key.seq, presses: presses, origin: .device(slot.device))
    }
}
