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
    /// is held at `held`, then tells the counter the sink is still held there, as the core does. Returns
    /// the presses it shows: a mute held back before it, then its own.
    mutating func presses(
        _ raw: UInt32, muted: Bool = false, after: Duration = .seconds(1), seen: UInt32? = nil, held: UInt32 = held,
        changes: Int = 0, afterReset: Bool = false
    ) -> [(direction: Direction, count: Int)] {
        now += after
        let level = Self.level(raw, muted: muted)
        let presses = counter.count(
            level, seen: Self.level(seen ?? held), target: Self.level(held),
            changes: changes, afterReset: afterReset, at: now
        )
        counter.read(level, holding: Self.level(held), at: now)
        return presses
    }

    /// The one press a reading shows, if any (see `presses`).
    mutating func read(
        _ raw: UInt32, muted: Bool = false, after: Duration = .seconds(1), seen: UInt32? = nil, held: UInt32 = held,
        changes: Int = 0, afterReset: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) -> (direction: Direction, count: Int)? {
        let found = presses(raw, muted: muted, after: after, seen: seen, held: held, changes: changes, afterReset: afterReset)
        if found.count > 1 { Issue.record("\(found.count) presses in one reading", sourceLocation: sourceLocation) }
        return found.first
    }

    /// The directions of `presses`, in order.
    static func directions(_ presses: [(direction: Direction, count: Int)]) -> [Direction] {
        presses.map { $0.direction }
    }

    /// What `checkHeldMute` says `after` the last reading.
    mutating func checkHeldMute(after: Duration = .zero) -> PressCounter.HeldMuteCheck? {
        counter.checkHeldMute(at: now + after)
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

    @Test("a change of mute alone is held back, and is a mute press once halfPressWindow passes without its volume half")
    mutating func muteHeldBack() {
        let mute = presses(Self.held, muted: true)
        #expect(mute.isEmpty, "the volume half of a desktop's key press may yet come")
        #expect(checkHeldMute() == .wait(PressCounter.halfPressWindow))
        #expect(checkHeldMute(after: PressCounter.halfPressWindow - .milliseconds(1)) == .wait(.milliseconds(1)))
        #expect(checkHeldMute(after: PressCounter.halfPressWindow) == .released(.mute, count: 1))
        #expect(checkHeldMute(after: PressCounter.halfPressWindow) == nil, "released once")
    }

    @Test("a change of the volume and the mute together is that volume press only, out at once")
    mutating func muteWithVolume() {
        let down = presses(Self.held - Self.step, muted: true)
        #expect(Self.directions(down) == [.down])
        #expect(checkHeldMute() == nil)
    }

    @Test("a desktop's key press read in halves, mute alone then volume alone, is one press of the volume's direction")
    mutating func halvesMuteFirst() {
        // mate-settings-daemon and GNOME at 0 %: the mute request read before the volume request landed.
        let mute = presses(Self.held, muted: true)
        let volumeHalf = presses(Self.held - Self.step, after: .milliseconds(3))
        #expect(mute.isEmpty)
        #expect(Self.directions(volumeHalf) == [.down])
        #expect(volumeHalf.first?.count == 1)
        #expect(checkHeldMute(after: PressCounter.halfPressWindow) == nil, "the mute went with it")
    }

    @Test("A change of the volume alone, then one of the mute alone at once, are two presses: no desktop sends its key's volume first")
    mutating func volumeThenMute() {
        // A script's `pactl set-sink-volume` then `pactl set-sink-mute`, a few milliseconds apart.
        let down = presses(Self.held - Self.step)
        let mute = presses(Self.held, muted: true, after: .milliseconds(3))
        #expect(Self.directions(down) == [.down])
        #expect(mute.isEmpty, "held back for a volume half, as every mute alone is")
        #expect(checkHeldMute(after: PressCounter.halfPressWindow) == .released(.mute, count: 1))
    }

    @Test("a change of mute alone and one of volume alone further apart than a key press's halves are two presses")
    mutating func halvesApart() {
        let mute = presses(Self.held, muted: true)
        let down = presses(Self.held - Self.step, after: PressCounter.halfPressWindow)
        // Halves of the same kind never complete each other.
        let again = presses(Self.held - Self.step, after: .milliseconds(40))
        #expect(mute.isEmpty)
        #expect(Self.directions(down) == [.mute, .down], "the mute's window had ended: it goes out first")
        #expect(Self.directions(again) == [.down])
    }

    @Test("another press while a mute is held back sends the mute first, and a second mute is held in its place")
    mutating func pressAfterHeldMute() {
        _ = presses(Self.held, muted: true)
        let both = presses(Self.held - Self.step, muted: true, after: .milliseconds(3))
        _ = presses(Self.held, muted: true, after: .milliseconds(40))
        let second = presses(Self.held, muted: true, after: .milliseconds(3))
        #expect(Self.directions(both) == [.mute, .down])
        #expect(Self.directions(second) == [.mute], "the first mute goes out")
        #expect(checkHeldMute() == .wait(PressCounter.halfPressWindow), "the second waits for its own volume half")
    }

    @Test("a key press's second half completes it once: a third, within the window, is a press")
    mutating func thirdHalf() {
        _ = presses(Self.held, muted: true)
        _ = presses(Self.held - Self.step, after: .milliseconds(2))
        let third = presses(Self.held, muted: true, after: .milliseconds(2))
        #expect(third.isEmpty, "held back in its turn")
        #expect(checkHeldMute(after: PressCounter.halfPressWindow) == .released(.mute, count: 1))
    }

    @Test("a mute held back when the sink is let go is a press at once")
    mutating func heldMuteDropped() {
        _ = presses(Self.held, muted: true)
        let released = counter.dropHeld()
        #expect(released?.direction == .mute)
        #expect(checkHeldMute() == nil)
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
        _ = counter.dropHeld()
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
        _ = counter.dropHeld()
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
