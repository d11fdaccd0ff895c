import GuardProtocol
import Testing

@testable import VolumeGuardCore

@Suite("Counting presses")
struct PressCounterTests {
    static let held: UInt32 = 30000
    static let step = Raw.step5

    var counter = PressCounter(keyStep: Self.step)
    /// The time of the next reading.
    var now: Duration = .seconds(10)

    static func level(_ raw: UInt32, muted: Bool = false) -> SinkLevel {
        SinkLevel(volume: .channels(raw), muted: muted)
    }

    /// Counts a reading at `raw` after `after`, from `seen` (the held level unless given), while the sink
    /// is held at `held`, then tells the counter the sink is still held there, as the core does.
    mutating func read(
        _ raw: UInt32, muted: Bool = false, after: Duration = .seconds(1), seen: UInt32? = nil, held: UInt32 = held,
        changes: Int = 0, afterReset: Bool = false
    ) -> (direction: Direction, count: Int)? {
        now += after
        let level = Self.level(raw, muted: muted)
        let press = counter.count(
            level, seen: Self.level(seen ?? held), target: Self.level(held),
            changes: changes, afterReset: afterReset, at: now
        )
        counter.read(level, holding: Self.level(held), at: now)
        return press
    }

    /// What `checkBurst` says `after` the last reading.
    mutating func checkBurst(after: Duration = .zero) -> PressCounter.BurstCheck? {
        counter.checkBurst(at: now + after)
    }

    @Test("a reading above the level accounted for is a press up, below it a press down, in key steps")
    mutating func upAndDown() {
        let up = read(Self.held + Self.step)
        let down = read(Self.held - 3 * Self.step)
        #expect(up?.direction == .up && up?.count == 1)
        #expect(down?.direction == .down && down?.count == 3)
    }

    @Test("without a known step every change counts one")
    mutating func unknownStep() {
        counter = PressCounter(keyStep: nil)
        let press = read(Self.held + 3 * Self.step)
        #expect(press?.count == 1)
    }

    @Test("a change of mute alone is a mute press; one with a volume press is that press only")
    mutating func mute() {
        let mute = read(Self.held, muted: true)
        let down = read(Self.held - Self.step, muted: true)
        #expect(mute?.direction == .mute)
        #expect(down?.direction == .down)
    }

    @Test("a desktop's key press read in halves, mute alone then volume alone or the reverse, is one press")
    mutating func halves() {
        // mate-settings-daemon at 0 %: the mute request read before the volume request landed.
        let mute = read(Self.held, muted: true)
        let volumeHalf = read(Self.held - Self.step, after: .milliseconds(3))
        // GNOME's order: the volume first.
        let down = read(Self.held - Self.step, after: .seconds(1))
        let muteHalf = read(Self.held, muted: true, after: .milliseconds(3))
        #expect(mute?.direction == .mute)
        #expect(volumeHalf == nil)
        #expect(down?.direction == .down)
        #expect(muteHalf == nil)
    }

    @Test("a change of mute alone and one of volume alone further apart than a key press's halves are two presses")
    mutating func halvesApart() {
        let mute = read(Self.held, muted: true)
        let down = read(Self.held - Self.step, after: PressCounter.halfPressWindow)
        // Halves of the same kind never complete each other.
        let again = read(Self.held - Self.step, after: .milliseconds(40))
        #expect(mute?.direction == .mute)
        #expect(down?.direction == .down)
        #expect(again?.direction == .down)
    }

    @Test("a key press's second half completes it once: a third, within the window, is a press")
    mutating func thirdHalf() {
        _ = read(Self.held, muted: true)
        _ = read(Self.held - Self.step, after: .milliseconds(2))
        let third = read(Self.held, muted: true, after: .milliseconds(2))
        #expect(third?.direction == .mute)
    }

    @Test("a reading at the level accounted for is no press")
    mutating func noChange() {
        let press = read(Self.held)
        #expect(press == nil)
    }

    @Test("in a run, a reading beyond every run level is counted from the farthest of them")
    mutating func runStepsOnTheReset() {
        _ = read(Self.held + Self.step)
        // The key's client read the pressed level before the reset landed, and stepped from it.
        let press = read(Self.held + 2 * Self.step, after: .milliseconds(30))
        #expect(press?.count == 1)
    }

    @Test("in a run, a reading short of the farthest run level is one step, keeping its direction")
    mutating func runNearSide() {
        _ = read(Self.held + 2 * Self.step)
        let press = read(Self.held + Self.step, after: .milliseconds(30))
        #expect(press?.direction == .up)
        #expect(press?.count == 1)
    }

    // The rules changed here (runLevels replaced the last pressed level): a reading that does not reach
    // beyond the run's recent levels counts one step, even several steps from the held level, as a key
    // stepping from a level it read before the reset landed would make it; fewer steps win.
    @Test("in a run, merged steps that do not reach beyond a recent run level count one")
    mutating func mergedBelowRunLevel() {
        _ = read(Self.held + 3 * Self.step)
        _ = read(Self.held + Self.step, after: .milliseconds(30))
        let press = read(Self.held + 2 * Self.step, after: .milliseconds(30))
        #expect(press?.count == 1, "the run read held + 3 steps: a client may have stepped from any level below")
        #expect(counter.runLevels == [Self.held + 3 * Self.step, Self.held + Self.step, Self.held + 2 * Self.step])
    }

    @Test("in a run, a reading moved back toward the held level from the level accounted for is no press")
    mutating func backTowardHeld() {
        _ = read(Self.held + 3 * Self.step)
        let back = read(Self.held + 2 * Self.step, after: .milliseconds(2), seen: Self.held + 3 * Self.step)
        let onto = read(Self.held, after: .milliseconds(2), seen: Self.held + 2 * Self.step)
        #expect(back == nil)
        #expect(onto == nil)
    }

    @Test("the run levels are the last few distinct levels read in a run, the held level never among them; a reading outside a run clears them")
    mutating func runLevelsKept() {
        _ = read(Self.held + Self.step)
        for n in 2...(PressCounter.runLevelsKept + 2) {
            _ = read(Self.held + UInt32(n) * Self.step, after: .milliseconds(30))
        }
        _ = read(Self.held, after: .milliseconds(30))
        _ = read(Self.held + 4 * Self.step, after: .milliseconds(30))
        #expect(counter.runLevels.count == PressCounter.runLevelsKept)
        #expect(counter.runLevels.last == Self.held + 4 * Self.step, "read again, a level becomes the latest")
        #expect(!counter.runLevels.contains(Self.held))
        _ = read(Self.held)
        #expect(counter.runLevels.isEmpty)
    }

    @Test("after a pause a reading is counted from the level accounted for; in a run, from it when it is the farthest")
    mutating func noRun() {
        _ = read(Self.held + Self.step)
        let afterPause = read(Self.held + 2 * Self.step)
        #expect(afterPause?.count == 2)
        // Not yet back at the held level: the level accounted for lies beyond the run's earlier levels.
        let unsettled = read(Self.held + 5 * Self.step, after: .milliseconds(30), seen: Self.held + 3 * Self.step)
        #expect(unsettled?.count == 2)
    }

    @Test("in a run, 100 % reached again counts one step, however far from the held level")
    mutating func pinnedAtFull() {
        let held: UInt32 = 60000
        _ = read(held + Self.step, held: held)
        _ = read(Raw.full, after: .milliseconds(30), held: held)
        let pinned = read(Raw.full, after: .milliseconds(30), held: held)
        #expect(pinned?.count == 1)
        let afterPause = read(Raw.full, held: held)
        #expect(afterPause?.count == 2, "outside a run it is counted from the held level")
    }

    // The rules changed here: a burst begins under 5 ms (was 10) and ends after `burstQuiet`, 20 ms
    // without a press (was the burst gap), so the waits asked for are measured against `burstQuiet`.
    @Test("a press within the burst gap of the one before defers the reset until the changes pause for burstQuiet")
    mutating func burstHoldsBack() {
        _ = read(Self.held + Self.step)
        let single = checkBurst()
        #expect(single == nil, "one press is no burst")
        _ = read(Self.held + 2 * Self.step, after: .milliseconds(2), seen: Self.held + Self.step)
        #expect(counter.isDeferringReset)
        let atOnce = checkBurst()
        let later = checkBurst(after: .milliseconds(4))
        let pastGap = checkBurst(after: PressCounter.burstGap)
        #expect(atOnce == .wait(PressCounter.burstQuiet))
        #expect(later == .wait(.milliseconds(16)))
        #expect(pastGap == .wait(PressCounter.burstQuiet - PressCounter.burstGap), "a pause of the gap is no end")
        let paused = checkBurst(after: PressCounter.burstQuiet)
        let over = checkBurst(after: PressCounter.burstQuiet)
        #expect(paused == .paused)
        #expect(over == nil)
        #expect(!counter.isDeferringReset)
    }

    @Test("presses 5 ms or more apart are no burst, unless one lands right after the guard's reset within burstQuiet")
    mutating func burstGapAndReset() {
        _ = read(Self.held + Self.step)
        _ = read(Self.held + 2 * Self.step, after: PressCounter.burstGap)
        #expect(!counter.isDeferringReset, "a scroll wheel at 125 Hz (8 ms) or a key is no burst")
        // The guard's reset was written and its reading shows a change on top: the program stepped
        // again before the guard could read the reset back.
        _ = read(Self.held + 3 * Self.step, after: .milliseconds(8), afterReset: true)
        #expect(counter.isDeferringReset)
        counter.dropHeld()
        _ = read(Self.held + Self.step, after: PressCounter.burstQuiet, afterReset: true)
        #expect(!counter.isDeferringReset, "after burstQuiet without a press, a change after the reset is no burst")
    }

    @Test("several change events while the first reading was taken mark a burst from that reading on")
    mutating func burstFromFirstReading() {
        _ = read(Self.held + Self.step, changes: PressCounter.burstChanges)
        #expect(counter.isDeferringReset)
    }

    @Test("a first reading of several steps, taken while the sink still changed, is a burst's")
    mutating func mergedWhileChanging() {
        _ = read(Self.held + 2 * Self.step, changes: 1)
        #expect(counter.isDeferringReset)
        counter.dropHeld()
        #expect(!counter.isDeferringReset)
        _ = read(Self.held + 2 * Self.step)
        #expect(!counter.isDeferringReset, "nothing changed while it was read: a person's merged presses")
    }

    @Test("the key step is learned from isolated presses, and dropped when another is configured")
    mutating func learnsStep() {
        counter = PressCounter(keyStep: nil)
        _ = read(Self.held + Self.step)
        _ = read(Self.held + Self.step)
        #expect(counter.keyStep.current == Self.step)
        counter.configure(keyStep: nil)
        #expect(counter.keyStep.current == Self.step, "the same configuration keeps what was learned")
        counter.configure(keyStep: Raw.step6)
        #expect(counter.keyStep.current == Raw.step6)
    }
}
