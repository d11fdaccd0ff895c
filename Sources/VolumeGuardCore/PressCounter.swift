/// Counts the presses a reading of the held sink shows, in key steps, and says when the sink must not
/// be put back yet. Every counting rule lives here.
///
/// A reading is counted from `seen` (see `EchoJudge`). Faster presses change two things. In a *run* (a
/// press in the last `KeyStep.isolation`: auto-repeat, a script) a reading may be counted from the level
/// the last press left the sink at instead (`base`). In a *burst* (presses closer than `burstGap`, which
/// only programs make) the counter *holds back*: nothing is written until the burst pauses, and each
/// reading is counted from the one before.
struct PressCounter: Hashable, Sendable {
    /// How close together changes come in a burst: closer than any key repeats (25 Hz and faster are
    /// 40 ms and less apart), so only a program stepping the volume makes them.
    ///
    /// Such a client steps from the level it has just read. A reset landing between its read and its
    /// write is built upon (counted from `base`), but one landing between its write and the guard's read
    /// of it overwrites a step unseen, and the next step starts from the held level. So within a burst
    /// the guard only reads, counting each reading from the one before, and puts the level back once
    /// the changes pause for this long.
    static let burstGap: Duration = .milliseconds(10)

    /// How many change events arriving while one read is in flight mark a burst from its first reading
    /// on: a reset written then would land among the program's steps and wipe out those before it.
    static let burstChanges = 3

    /// What holding back asks for, when the counter is asked whether it still holds back.
    enum BurstCheck: Hashable, Sendable {
        /// The burst may go on: look again after this long.
        case wait(Duration)
        /// The burst has paused: the sink is due to be read, and put back.
        case paused
    }

    private(set) var presses = PressCounts()
    /// The seq of the last press counted; 0 before the first.
    private(set) var lastSeq: UInt64 = 0
    private(set) var keyStep: KeyStep
    /// When the last press was counted.
    private var lastPress: Duration?
    /// The volume the last press left the held sink at, before the guard put it back.
    private var lastPressed: SinkVolume?
    /// Changes are coming faster than keys repeat: the held level waits until they pause.
    private(set) var isHoldingBack = false

    init(keyStep: UInt32?) {
        self.keyStep = KeyStep(configured: keyStep)
    }

    /// Takes a newly configured key step; a step learned so far is dropped when it changes.
    mutating func configure(keyStep step: UInt32?) {
        if step != keyStep.configured { keyStep = KeyStep(configured: step) }
    }

    /// Counts `level`, a reading of the held sink named `sink` taken at `now`, against `seen`, the level
    /// accounted for, while the sink is held at `target`; `changes` change events came while it was
    /// read. Returns the press it shows, if any.
    mutating func count(
        _ level: SinkLevel, seen: SinkLevel, target: SinkLevel, changes: Int, on sink: String, at now: Duration
    ) -> Press? {
        let run = pressCame(within: KeyStep.isolation, at: now)
        // The sink was at the held level when the reading came, as far as the core knows.
        let settled = seen == target
        // A burst's first reading shows no press before it, but the server reporting several more
        // changes while the guard read does: a program is stepping. A key press is one change.
        var burst = pressCame(within: Self.burstGap, at: now) || changes >= Self.burstChanges
        var press: Press?
        let delta = Int64(level.volume.max) - Int64(base(for: level.volume, from: seen.volume, inRun: run && settled).max)
        if delta != 0 {
            let size = UInt32(delta.magnitude)
            keyStep.notePress(of: size, at: now, isolated: settled && !run)
            let count = isPinnedAtExtreme(level.volume, inRun: run && settled) ? 1 : keyStep.count(for: size)
            // Several steps in one reading, and still changing while it was taken: no hand presses
            // keys that fast (a read takes well under a millisecond).
            if count > 1, changes > 0 { burst = true }
            press = record(delta > 0 ? .up : .down, count: count, on: sink, at: now)
            lastPressed = level.volume
        } else if level.muted != seen.muted {
            // A desktop that mutes at 0 % or unmutes on up does so with the volume press: one press.
            press = record(.mute, count: 1, on: sink, at: now)
        }
        if burst, level != seen { isHoldingBack = true }
        return press
    }

    /// While holding back: ends it once the burst has paused, or says when it may have. Nil when not
    /// holding back.
    mutating func checkBurst(at now: Duration) -> BurstCheck? {
        guard isHoldingBack else { return nil }
        guard pressCame(within: Self.burstGap, at: now), let lastPress else {
            isHoldingBack = false
            return .paused
        }
        return .wait(lastPress + Self.burstGap - now)
    }

    /// No sink is held any more: its last press and its burst count for nothing.
    mutating func dropHeld() {
        lastPressed = nil
        isHoldingBack = false
    }

    /// The level a reading is counted from: the one the core has accounted for, except in a run of
    /// presses from the settled held level, when the reading lies beyond the level the last press left
    /// the sink at, on the far side from the held level. A key's client steps from the level it last
    /// read; in a run it may read that level before the guard's reset lands, and its step then lands on
    /// top of the reset, one step beyond that level and two or more from the held one. Counted from the
    /// held level, each such press would count several times. Presses a person merged within the same
    /// moment can look alike; the readings cannot tell the two apart, and the fewer presses win. A
    /// reading on the near side is counted from the held level, so its direction is never turned around.
    private func base(for reading: SinkVolume, from seen: SinkVolume, inRun: Bool) -> SinkVolume {
        guard inRun, let pressed = lastPressed else { return seen }
        let beyond = pressed.max > seen.max ? reading.max > pressed.max : pressed.max < seen.max && reading.max < pressed.max
        return beyond ? pressed : seen
    }

    /// Whether, in a run, the reading is the level the last press left the sink at, and that level is
    /// 0 % or 100 %: a key stepping from there (even from a reading taken before the reset landed) lands
    /// on it again, and only one step can be seen.
    private func isPinnedAtExtreme(_ reading: SinkVolume, inRun: Bool) -> Bool {
        inRun && lastPressed == reading && (reading.max == 0 || reading.max == SinkVolume.norm)
    }

    private mutating func record(_ direction: Direction, count: Int, on sink: String, at now: Duration) -> Press {
        lastPress = now
        lastSeq += 1
        presses[direction] += count
        return Press(seq: lastSeq, direction: direction, count: count, sink: sink)
    }

    private func pressCame(within span: Duration, at now: Duration) -> Bool {
        lastPress.map { now - $0 < span } ?? false
    }
}
