import GuardProtocol

/// Counts the presses a reading of the held sink shows, in key steps, and says when the sink must not
/// be put back yet. Every counting rule lives here.
///
/// A reading is counted from `seen` (see `EchoJudge`). Faster presses change two things. In a *run* (a
/// press in the last `KeyStep.isolation`: auto-repeat, a script) a reading counts several steps only
/// beyond every one of the *run levels* and `seen`, and one otherwise (`base`): never more steps than a
/// client made. In a *burst* (presses closer than `burstGap`, which only programs make) the counter
/// *defers the reset*: nothing is written until the burst pauses for `burstQuiet`, and each reading is counted
/// from the one before. docs/COUNTING.md, "Counting: the rule and its proof sketch", argues why.
struct PressCounter: Hashable, Sendable {
    /// How close together changes come in a burst: closer than any key repeats (25 Hz and faster are
    /// 40 ms and less apart) or a scroll wheel steps (125 Hz: 8 ms), so only a program stepping the
    /// volume makes them.
    ///
    /// Such a client steps from the level it has just read. A reset landing between its read and its
    /// write is built upon (counted from `base`), but one landing between its write and the guard's read
    /// of it overwrites a step unseen, and the next step starts from the held level. So within a burst
    /// the guard only reads, counting each reading from the one before, and puts the level back once
    /// the changes pause for `burstQuiet`.
    ///
    /// Steps further apart than this are each read and put back long before the next (the guard's
    /// round trip is 1–3 ms), so no reset can fall between a step and the guard's reading of it.
    static let burstGap: Duration = .milliseconds(5)

    /// How long a burst must pause before the guard puts the level back: four times `burstGap`, so
    /// that a program stepping at a steady pace, however its timer jitters, is either never in a burst
    /// or stays in one until it stops. Were the two equal, a program stepping at about that pace would
    /// enter and leave bursts at random, and each reset at a burst's end would fall right where its
    /// next step lands, overwriting it (a scroll wheel at 125 Hz lost 8 of 200 steps so while bursts
    /// began and ended at 10 ms).
    static let burstQuiet: Duration = .milliseconds(20)

    /// How many run levels a client may still step from (see `base`): a client that does not wait for
    /// its sets' acknowledgements can read pipewire-pulse's cache several of its own sets behind (the
    /// cache lags 1-3 ms), and the guard reads a new level at most every 0.2 ms or so. Older levels are
    /// forgotten so that a burst that climbs again after a pause is counted from its own readings, not
    /// from those of the climb before.
    static let runLevelsKept = 8

    /// How many change events arriving while one read is in flight mark a burst from its first reading
    /// on: a reset written then would land among the program's steps and wipe out those before it.
    static let burstChanges = 3

    /// How soon after a change of the mute alone a change of the volume alone is the rest of the same
    /// key press. A desktop's key at or below one step sets 0 % and mutes
    /// (mate-settings-daemon and GNOME; MATE's down above it unmutes, GNOME's up unmutes), as two
    /// requests sent one after the other, the mute first, and a desktop preempted between them lets the
    /// guard read the sink in between: the second half would be a press the person never made, and the
    /// first the wrong one. So a mute alone is held back this long (`HeldMute`). Longer than a busy
    /// machine keeps a process from running (a few milliseconds); half the period of GNOME's key repeat
    /// (30 ms), the fastest a desktop repeats by default, so that the next repeat is never taken for it.
    static let halfPressWindow: Duration = .milliseconds(15)

    /// What a press changed, when it changed one of the volume and the mute and not the other.
    enum Half: Hashable, Sendable {
        case volume
        case mute

        /// What `level` changed alone from `seen`; nil when it changed both, or neither.
        init?(_ level: SinkLevel, from seen: SinkLevel) {
            switch (level.volume.max != seen.volume.max, level.muted != seen.muted) {
            case (true, false): self = .volume
            case (false, true): self = .mute
            case (true, true), (false, false): return nil
            }
        }
    }

    /// The press a mute held back is, once it goes out on its own.
    static let mutePress = (direction: Direction.mute, count: 1)

    /// A press that changed only the mute, not reported yet: the volume half of the same key press may
    /// come within `halfPressWindow`, and the two are then one volume press.
    private struct HeldMute: Hashable, Sendable {
        var time: Duration
        /// The last press before it: the volume half is counted after this one, as a reading that showed
        /// both halves at once would be.
        var before: Duration?

        func isOpen(at now: Duration) -> Bool { now - time < PressCounter.halfPressWindow }
    }

    /// What holding back a mute press asks for, when the counter is asked about it.
    enum HeldMuteCheck: Hashable, Sendable {
        /// The volume half may still come: look again after this long.
        case wait(Duration)
        /// It did not come: the mute is a press of its own, due now.
        case released(Direction, count: Int)
    }

    /// What deferring the reset asks for, when the counter is asked whether it still defers it.
    enum BurstCheck: Hashable, Sendable {
        /// The burst may go on: look again after this long.
        case wait(Duration)
        /// The burst has paused: the sink is due to be read, and put back.
        case paused
    }

    private(set) var keyStep: KeyStep
    /// When the last press was counted.
    private var lastPress: Duration?
    private var heldMute: HeldMute?
    /// The run levels: the last `runLevelsKept` distinct levels (loudest channel) the held sink was read
    /// at in this run of presses, the latest last, the held level never among them. A client may still
    /// step from any of them (see `base`); a reading outside a run clears them.
    private(set) var runLevels: [UInt32] = []
    /// Changes are coming faster than keys repeat: the held level waits until they pause.
    private(set) var isDeferringReset = false

    init(keyStep: UInt32?) {
        self.keyStep = KeyStep(configured: keyStep)
    }

    /// Takes a newly configured key step; a step learned so far is dropped when it changes.
    mutating func configure(keyStep step: UInt32?) {
        if step != keyStep.configured { keyStep = KeyStep(configured: step) }
    }

    /// Counts `level`, a reading of the held sink taken at `now`, against `seen`, the level accounted
    /// for, while the sink is held at `target`; `changes` change events came while it was read, and
    /// `afterReset` when it is the reading that verifies the guard's reset. Returns the presses it
    /// shows, in key steps (the press pipeline numbers them): a press of the mute alone is held back
    /// (`checkHeldMute`), and one held before it goes out first when this reading is another press.
    /// Once the reading is accounted for (and the sink perhaps held elsewhere), tell the counter where it
    /// is held now (`read(_:holding:at:)`).
    mutating func count(
        _ level: SinkLevel, seen: SinkLevel, target: SinkLevel, changes: Int, afterReset: Bool,
        at now: Duration
    ) -> [(direction: Direction, count: Int)] {
        let alone = Half(level, from: seen)
        let held = heldMute
        heldMute = nil
        // The volume half of the held mute's key press: the two are one press, counted as a reading that
        // changed both at once would be, after the press before them.
        let completesHeld = alone == .volume && held?.isOpen(at: now) == true
        if completesHeld { lastPress = held?.before }
        let run = pressCame(within: KeyStep.isolation, at: now)
        if !run { runLevels = [] }
        // A program is stepping when a press follows the last within `burstGap`; when one lands on top
        // of the guard's reset of a press before it could read the reset back (the guard's round trip
        // is slower than the program's steps); or when the server reports several changes while one
        // read is in flight: a burst's first reading shows no press before it, and a key press is one
        // change.
        var burst =
            pressCame(within: Self.burstGap, at: now)
            || (afterReset && pressCame(within: Self.burstQuiet, at: now))
            || changes >= Self.burstChanges
        var press: (direction: Direction, count: Int)?
        var holdsBack = false
        var step: UInt32?
        let loudest = level.volume.max
        let counted = base(for: loudest, seen: seen.volume.max, held: target.volume.max, inRun: run)
        let delta = counted.map { Int64(loudest) - Int64($0.level) } ?? 0
        if let counted, delta != 0 {
            let size = UInt32(delta.magnitude)
            // The sink was at the held level when the reading came, as far as the core knows.
            keyStep.notePress(of: size, at: now, isolated: seen == target && !run)
            step = keyStep.current ?? size
            let count = counted.oneStep ? 1 : keyStep.count(for: size)
            // Several steps in one reading, and still changing while it was taken: no hand presses
            // keys that fast (a read takes well under a millisecond).
            if count > 1, changes > 0 { burst = true }
            press = record(delta > 0 ? .up : .down, count: count, at: now)
        } else if level.muted != seen.muted || completesHeld {
            // A desktop that mutes at 0 % or unmutes on up does so with the volume press: one press.
            if alone == .mute {
                heldMute = HeldMute(time: now, before: lastPress)
                holdsBack = true
            }
            press = record(.mute, count: 1, at: now)
        }
        if burst, level != seen { isDeferringReset = true }
        // Where the program's next step would meet 0 % or 100 %, the burst is put back now: clients stop
        // there, and a step that changes nothing raises no event, so it would go unseen.
        if isDeferringReset, let press, let step, !Self.hasRoom(for: step, from: loudest, going: press.direction) {
            isDeferringReset = false
        }
        var presses: [(direction: Direction, count: Int)] = []
        if let held, !completesHeld {
            // Another press ends the wait for the held mute's volume half; no press leaves it waiting.
            if press != nil { presses.append(Self.mutePress) } else { heldMute = held }
        }
        if let press, !holdsBack { presses.append(press) }
        return presses
    }

    /// While a press of the mute alone is held back: releases it once `halfPressWindow` has passed with
    /// no volume half, or says how long it may still come. Nil when none is held.
    mutating func checkHeldMute(at now: Duration) -> HeldMuteCheck? {
        guard let held = heldMute else { return nil }
        guard !held.isOpen(at: now) else { return .wait(held.time + Self.halfPressWindow - now) }
        heldMute = nil
        return .released(Self.mutePress.direction, count: Self.mutePress.count)
    }

    /// Whether one more step of `step` from `level` going `direction` stays inside 0 % to 100 %.
    private static func hasRoom(for step: UInt32, from level: UInt32, going direction: Direction) -> Bool {
        direction == .up ? level + step < SinkVolume.norm : level > step
    }

    /// The reading `level`, taken at `now`, has been counted, and the sink is now held at `target`: in
    /// a run (the reading's own press included), a level apart from the held one becomes the latest run
    /// level. It is asked after the reading may have moved the held level (`Contest`), which a client's
    /// level taken over is then no longer apart from.
    mutating func read(_ level: SinkLevel, holding target: SinkLevel, at now: Duration) {
        let loudest = level.volume.max
        guard pressCame(within: KeyStep.isolation, at: now), loudest != target.volume.max else { return }
        runLevels.removeAll { $0 == loudest }
        runLevels.append(loudest)
        if runLevels.count > Self.runLevelsKept { runLevels.removeFirst() }
    }

    /// While the reset is deferred: ends that once the burst has paused, or says when it may have. Nil
    /// when it is not deferred.
    mutating func checkBurst(at now: Duration) -> BurstCheck? {
        guard isDeferringReset else { return nil }
        guard pressCame(within: Self.burstQuiet, at: now), let lastPress else {
            isDeferringReset = false
            return .paused
        }
        return .wait(lastPress + Self.burstQuiet - now)
    }

    /// No sink is held any more: its run levels and its burst count for nothing. Returns the mute press
    /// held back, if any, due now: nothing can complete it any more.
    mutating func dropHeld() -> (direction: Direction, count: Int)? {
        runLevels = []
        isDeferringReset = false
        defer { heldMute = nil }
        return heldMute.map { _ in Self.mutePress }
    }

    /// How a reading (its loudest channel) counts, against `seen`, the level accounted for, while the
    /// sink is held at `held`: from which level, or as one step whatever its size; nil when it is no
    /// press.
    ///
    /// Outside a run of presses, from `seen`. In a run (auto-repeat, a script), a client steps from
    /// whatever level it last read, and that may be one the guard has since put back, or one a burst
    /// has since moved on from; on pipewire-pulse, whose reads answer from a cache, even one from before
    /// the client's own last few sets. The reading is then one step from a level the sink was at,
    /// possibly several from `seen`, and nothing tells which level it was. So in a run:
    ///
    /// - a reading beyond every recent level on its side of the held level (the run levels, and `seen`)
    ///   is counted from the farthest of them: the levels in between were never read, so the steps that
    ///   made them were never counted;
    /// - any other reading is one step: something changed, so at least one step landed since the last
    ///   reading, and the levels it passes were counted when they were read (a key pinned at 0 % or
    ///   100 % is one of these: it lands on a run level again);
    /// - a reading that moved the sink back toward the held level from `seen`, or onto it, which only
    ///   happens in a burst (nothing was put back), is no press: a program stepping back, and one
    ///   stepping on from a level it read before its last steps landed, cannot be told apart, and
    ///   counted it would be a step in the other direction that this client never made.
    ///
    /// Fewer steps always win: presses merged within one reading that do not reach beyond the recent
    /// levels count one. docs/COUNTING.md, "Counting: the rule and its proof sketch".
    private func base(for reading: UInt32, seen: UInt32, held: UInt32, inRun: Bool) -> (level: UInt32, oneStep: Bool)? {
        guard inRun, reading != seen else { return (seen, false) }
        let up = reading > held
        func beyond(_ level: UInt32, _ than: UInt32) -> Bool { up ? level > than : level < than }
        // Back toward the held level, from the level accounted for on the same side.
        if reading == held || (seen != held && (seen > held) == up && beyond(seen, reading)) { return nil }
        var farthest = held
        for level in runLevels + [seen] where level != held && (level > held) == up && beyond(level, farthest) {
            farthest = level
        }
        return beyond(reading, farthest) ? (farthest, false) : (held, true)
    }

    private mutating func record(_ direction: Direction, count: Int, at now: Duration) -> (direction: Direction, count: Int) {
        lastPress = now
        return (direction, count)
    }

    private func pressCame(within span: Duration, at now: Duration) -> Bool {
        lastPress.map { now - $0 < span } ?? false
    }
}
