import GuardProtocol

/// Where every press goes, whichever source saw it: numbered, counted, paired with its release, and
/// looked at for gestures. A pure value, like the sources' machines: fed what a source saw, it returns
/// what to send. The shell then hands the lines to the subscribers (whose hub keeps the history that
/// `since` replays) and the presses to the actions, the same for every source.
///
/// The sink's presses have no ups, so `GestureDetector` guesses holds, double presses and taps from their
/// timing; a device's keys go down and up, and `KeysDown` times those. Both look on each key for the
/// gestures configured on it (`GestureUses`), and a tap waits for those only.
public struct PressPipeline: Sendable {
    /// What to do with what the pipeline made.
    public enum Action: Hashable, Sendable {
        /// Send a press to every subscriber and run the actions on presses it matches.
        case publish(Press)
        /// Send a release to every subscriber.
        case release(Release)
        /// Send a gesture to the subscribers that want them, and run the actions on gestures it matches.
        case gesture(Gesture)
        /// Call `wakeUp(at:)` after this long: a gesture may complete in silence then. Earlier calls
        /// do no harm, so a shell may keep one timer per request or just the earliest.
        case wakeUp(after: Duration)
    }

    /// The seq of the last press; 0 before the first.
    public private(set) var lastSeq: UInt64 = 0
    /// The volume keys' presses, in key steps, from every source.
    public private(set) var counts = PressCounts()
    private var guessed: GestureDetector
    private var keysDown: KeysDown

    /// When gestures are told, and which each key looks for: the same for both sources.
    public var gestures: GestureDetector.Configuration { guessed.configuration }

    public init(gestures: GestureDetector.Configuration = .init()) {
        guessed = GestureDetector(configuration: gestures)
        keysDown = KeysDown(configuration: gestures)
    }

    /// A press of the volume key `direction`, `count` key steps, seen on the sink named `sink` at `now`.
    public mutating func sinkPressed(_ direction: Direction, count: Int, sink: String, at now: Duration) -> [Action] {
        let press = number(Press(seq: 0, direction: direction, count: count, origin: .sink(sink)))
        return [.publish(press)] + tell(guessed.press(direction, seq: press.seq, count: count, sink: sink, at: now))
    }

    /// `key` went down on `device` at `now`. A key already down (read back after SYN_DROPPED) is no new
    /// press.
    public mutating func keyDown(_ key: UInt16, on device: DeviceRef, at now: Duration) -> [Action] {
        let slot = KeysDown.Slot(device: device, key: key)
        guard keysDown.down[slot] == nil else { return [] }
        let press = number(Press(seq: 0, direction: Direction(key: key), key: key, count: 1, origin: .device(device)))
        return [.publish(press)] + tell(keysDown.pressed(press, slot: slot, at: now))
    }

    /// `key` of `device` is no longer down, for `cause`, at `now`. Nothing for a key not down.
    public mutating func keyUp(_ key: UInt16, on device: DeviceRef, cause: ReleaseCause, at now: Duration) -> [Action] {
        guard let (release, gestures, wakeUp) = keysDown.released(.init(device: device, key: key), cause: cause, at: now) else { return [] }
        return [.release(release)] + tell((gestures, wakeUp))
    }

    /// A press a paired client made: of the volume key `direction`, or of another `key`, as the gesture
    /// `gesture` (`press`: the press alone). A client names its gesture, so nothing waits for one: its tap,
    /// double press or hold (its start and its end) follows its press at once.
    public mutating func clientPressed(_ direction: Direction?, key: UInt16?, as gesture: TriggerKind, client: String) -> [Action] {
        let press = number(Press(seq: 0, direction: direction, key: direction == nil ? key : nil, count: 1, origin: .client(client)))
        let gestures: [GestureKind] =
            switch gesture {
            case .press: []
            case .tap: [.tap]
            case .double: [.double]
            case .hold: [.holdStart, .holdEnd]
            }
        return [.publish(press)]
            + gestures.map { kind in
                .gesture(
                    Gesture(
                        kind: kind, direction: press.direction, key: press.key, seq: press.seq, presses: kind == .double ? 2 : 1,
                        origin: press.origin))
            }
    }

    /// Looks again at `now`, as a `wakeUp` asked.
    public mutating func wakeUp(at now: Duration) -> [Action] {
        tell(guessed.wakeUp(at: now)) + tell(keysDown.wakeUp(at: now))
    }

    /// The sink's presses stopped for a reason other than their key (the audio server went away): a
    /// hold guessed from them ends now.
    public mutating func sinkInterrupted(at now: Duration) -> [Action] {
        guessed.interrupt(at: now).map(Action.gesture)
    }

    /// New gesture thresholds or uses: a hold guessed from the sink's presses ends at once, told as such;
    /// a device's keys down keep their presses, and each key looks for the new uses from its next down.
    public mutating func reconfigure(_ gestures: GestureDetector.Configuration, at now: Duration) -> [Action] {
        guard gestures != guessed.configuration else { return [] }
        let ended = sinkInterrupted(at: now)
        guessed = GestureDetector(configuration: gestures)
        keysDown.configuration = gestures
        return ended
    }

    private mutating func number(_ press: Press) -> Press {
        var numbered = press
        lastSeq += 1
        numbered.seq = lastSeq
        if let direction = press.direction { counts[direction] += press.count }
        return numbered
    }

    private func tell(_ found: (gestures: [Gesture], wakeUp: Duration?)) -> [Action] {
        found.gestures.map(Action.gesture) + (found.wakeUp.map { [.wakeUp(after: $0)] } ?? [])
    }
}
