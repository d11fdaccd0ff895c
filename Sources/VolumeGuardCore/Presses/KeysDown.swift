import GuardProtocol

/// The keys down on grabbed devices: pairs each release with its press, and finds holds, double presses
/// and taps in their real downs and ups, as the platform APIs that give key phases do
/// (AVCaptureEventInteraction's began and ended, Android's onKeyDown and onKeyUp).
///
/// Each down looks for the gestures configured on its key (`GestureUses`). Where a hold is looked for, a
/// key still down `holdDelay` after its down is held (`hold_start`); its release ends the hold
/// (`hold_end`, with the release's cause). Where a double is, a down that comes within `doubleWindow` of
/// the last down of the same key on the same device, that one released without a hold and not itself the
/// second of a double, makes a double press, told at once: the down is real, so nothing is left to wait
/// for. A down that became neither is a tap as soon as neither can still claim it: once its key is up
/// (where a hold is looked for) and `doubleWindow` has passed since it (where a double is), at its down
/// if neither is; so that an action on taps alone never runs for a hold's or a double's press.
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
        /// What its key looks for, as the configuration said at the down.
        var lookedFor: GestureUses.LookedFor
        var holding = false

        /// When its tap is due, if nothing claims it first and (where a hold is looked for) its key is up.
        func tapDue(_ thresholds: GestureDetector.Thresholds) -> Duration {
            at + (lookedFor.double ? thresholds.doubleWindow : .zero)
        }
    }

    /// A key's last short press, not yet told: the first of a double press if the next down comes soon
    /// enough, else a tap.
    struct Tap: Hashable, Sendable {
        var down: Down
        /// Its key came up (a key-up, not a device that went): the tap is told once the window passes.
        var released = false

        /// Whether nothing but the double window is still to pass: its key came up, or no hold is looked for.
        var waitsForWindowOnly: Bool { released || !down.lookedFor.hold }
    }

    var configuration: GestureDetector.Configuration
    private(set) var down: [Slot: Down] = [:]
    private var taps: [Slot: Tap] = [:]
    private var thresholds: GestureDetector.Thresholds { configuration.thresholds }

    init(configuration: GestureDetector.Configuration) {
        self.configuration = configuration
    }

    /// `press`, of `slot`, went down at `now`; returns a double press it completes (or the tap before it,
    /// if its wake-up is overdue; or its own tap, if its key looks for neither a hold nor a double), and
    /// when to look again. A down of a key already down (a down lost to SYN_DROPPED, read back with
    /// EVIOCGKEY) is the same press.
    mutating func pressed(_ press: Press, slot: Slot, at now: Duration) -> (gestures: [Gesture], wakeUp: Duration?) {
        guard down[slot] == nil else { return ([], nil) }
        let lookedFor = configuration.uses.lookedFor(direction: press.direction, key: slot.key, origin: .device(slot.device))
        let key = Down(seq: press.seq, direction: press.direction, at: now, lookedFor: lookedFor)
        down[slot] = key
        var found: [Gesture] = []
        if let first = taps.removeValue(forKey: slot) {
            if first.down.lookedFor.double, now - first.down.at <= thresholds.doubleWindow {
                return ([gesture(.double, slot, key, presses: 2)], wakeUp(for: key))
            }
            found.append(gesture(.tap, slot, first.down, presses: 1))
        }
        guard lookedFor.hold || lookedFor.double else { return (found + [gesture(.tap, slot, key, presses: 1)], nil) }
        taps[slot] = Tap(down: key)
        return (found, wakeUp(for: key))
    }

    /// How long after its down to look at `key` again: for its hold, or else for its tap.
    private func wakeUp(for key: Down) -> Duration? {
        if key.lookedFor.hold { return thresholds.holdDelay }
        return key.lookedFor.double ? thresholds.doubleWindow : nil
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
        let due = key.tapDue(thresholds)
        guard due > now else {
            taps[slot] = nil
            return (release, [gesture(.tap, slot, key, presses: 1)], nil)
        }
        taps[slot]?.released = true
        return (release, [], due - now)
    }

    /// Looks again at `now`: a key down for `holdDelay` is held (where a hold is looked for), and a press
    /// whose double window has passed is a tap, once released where a hold is looked for. Returns when to
    /// look again, if a key down may still become held or a tap is still to be told.
    mutating func wakeUp(at now: Duration) -> (gestures: [Gesture], wakeUp: Duration?) {
        var found: [(seq: UInt64, gesture: Gesture)] = []
        var dues: [Duration] = []
        for (slot, key) in down where !key.holding && key.lookedFor.hold {
            let due = key.at + thresholds.holdDelay
            if due <= now {
                down[slot]?.holding = true
                taps[slot] = nil
                found.append((key.seq, gesture(.holdStart, slot, key, presses: 1)))
            } else {
                dues.append(due)
            }
        }
        for (slot, tap) in taps where tap.waitsForWindowOnly {
            let due = tap.down.tapDue(thresholds)
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
