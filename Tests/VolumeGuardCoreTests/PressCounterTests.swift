@testable import VolumeGuardCore
import Testing

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
    /// is held at `held`.
    mutating func read(
        _ raw: UInt32, muted: Bool = false, after: Duration = .seconds(1), seen: UInt32? = nil, held: UInt32 = held,
        changes: Int = 0
    ) -> Press? {
        now += after
        return counter.count(
            Self.level(raw, muted: muted), seen: Self.level(seen ?? held), target: Self.level(held),
            changes: changes, on: Name.speakers, at: now
        )
    }

    /// What `checkBurst` says `after` the last reading.
    mutating func checkBurst(after: Duration = .zero) -> PressCounter.BurstCheck? {
        counter.checkBurst(at: now + after)
    }

    @Test("a reading above the level accounted for is a press up, below it a press down, in key steps")
    mutating func upAndDown() {
        let up = read(Self.held + Self.step)
        let down = read(Self.held - 3 * Self.step)
        #expect(up == Press(seq: 1, direction: .up, count: 1, sink: Name.speakers))
        #expect(down == Press(seq: 2, direction: .down, count: 3, sink: Name.speakers))
        #expect(counter.presses.up == 1)
        #expect(counter.presses.down == 3)
        #expect(counter.lastSeq == 2)
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
        #expect(counter.presses.mute == 1)
    }

    @Test("a reading at the level accounted for is no press")
    mutating func noChange() {
        let press = read(Self.held)
        #expect(press == nil)
        #expect(counter.lastSeq == 0)
    }

    @Test("in a run, a reading beyond the last press's level is counted from that level")
    mutating func runStepsOnTheReset() {
        _ = read(Self.held + Self.step)
        // The key's client read the pressed level before the reset landed, and stepped from it.
        let press = read(Self.held + 2 * Self.step, after: .milliseconds(30))
        #expect(press?.count == 1)
    }

    @Test("in a run, a reading on the near side is counted from the held level, keeping its direction")
    mutating func runNearSide() {
        _ = read(Self.held + 2 * Self.step)
        let press = read(Self.held + Self.step, after: .milliseconds(30))
        #expect(press?.direction == .up)
        #expect(press?.count == 1)
    }

    @Test("after a pause, or from a sink not settled at the held level, a reading is counted from the level accounted for")
    mutating func noRun() {
        _ = read(Self.held + Self.step)
        let afterPause = read(Self.held + 2 * Self.step)
        #expect(afterPause?.count == 2)
        // Not yet back at the held level: counted from the level accounted for, not the last press's.
        let unsettled = read(Self.held + 5 * Self.step, after: .milliseconds(30), seen: Self.held + 3 * Self.step)
        #expect(unsettled?.count == 2)
    }

    @Test("in a run, the last press's level at 100 % reached again counts one step, however far from the held level")
    mutating func pinnedAtFull() {
        let held: UInt32 = 60000
        _ = read(held + Self.step, held: held)
        _ = read(Raw.full, after: .milliseconds(30), held: held)
        let pinned = read(Raw.full, after: .milliseconds(30), held: held)
        #expect(pinned?.count == 1)
        let afterPause = read(Raw.full, held: held)
        #expect(afterPause?.count == 2, "outside a run it is counted from the held level")
    }

    @Test("a press within the burst gap of the one before holds back until the changes pause")
    mutating func burstHoldsBack() {
        _ = read(Self.held + Self.step)
        let single = checkBurst()
        #expect(single == nil, "one press is no burst")
        _ = read(Self.held + 2 * Self.step, after: .milliseconds(2), seen: Self.held + Self.step)
        #expect(counter.isHoldingBack)
        let atOnce = checkBurst()
        let later = checkBurst(after: .milliseconds(4))
        #expect(atOnce == .wait(PressCounter.burstGap))
        #expect(later == .wait(.milliseconds(6)))
        let paused = checkBurst(after: PressCounter.burstGap)
        let over = checkBurst(after: PressCounter.burstGap)
        #expect(paused == .paused)
        #expect(over == nil)
        #expect(!counter.isHoldingBack)
    }

    @Test("several change events while the first reading was taken mark a burst from that reading on")
    mutating func burstFromFirstReading() {
        _ = read(Self.held + Self.step, changes: PressCounter.burstChanges)
        #expect(counter.isHoldingBack)
    }

    @Test("a first reading of several steps, taken while the sink still changed, is a burst's")
    mutating func mergedWhileChanging() {
        _ = read(Self.held + 2 * Self.step, changes: 1)
        #expect(counter.isHoldingBack)
        counter.dropHeld()
        #expect(!counter.isHoldingBack)
        _ = read(Self.held + 2 * Self.step)
        #expect(!counter.isHoldingBack, "nothing changed while it was read: a person's merged presses")
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
