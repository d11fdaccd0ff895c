import Testing

@testable import VolumeGuardCore

/// The counterexamples the generated clients found (ClientModelTests), each shrunk to the history that
/// shows it and replayed here step by step. docs/COUNTING.md, "Counting: the rule and its proof sketch".
@Suite("Counting: the histories that broke the rule")
struct CountingTests {
    static let held: UInt32 = 30000
    static let step = Raw.step5
    static let speakers = SimulatedSink(index: 1, name: Name.speakers, [held, held])

    static func guarding() -> Harness {
        Harness.guarding([speakers], configuration: GuardCore.Configuration(keyStep: step))
    }

    /// A client that reads the sink and sets it one step up, `pace` after its last step; the guard and
    /// server then take their course before the next step.
    static func stepUp(_ h: inout Harness, pace: Duration) {
        h.pace = pace
        h.userMoves(Name.speakers, by: Int64(step))
        h.settle()
    }

    // MARK: Bursts begin and end at different paces

    @Test("a scroll wheel at 125 Hz whose timer fires late is counted exactly")
    func lateWheelStep() {
        // Found as `paced125Hz` on both servers: 8 of 200 steps lost. Steps 8 ms apart were a burst
        // (under 10 ms), so nothing was put back until one came 10 ms after the last; a step just late
        // enough landed between the guard's reading and the reset that followed it, and was overwritten.
        var h = Self.guarding()
        for _ in 0..<10 { Self.stepUp(&h, pace: .milliseconds(8)) }
        Self.stepUp(&h, pace: .milliseconds(11))
        for _ in 0..<10 { Self.stepUp(&h, pace: .milliseconds(8)) }
        h.wait(PressCounter.burstQuiet * 2)
        #expect(h.counts.up == 21)
        #expect(h.presses.allSatisfy { $0.count == 1 })
        #expect(h.sink(Name.speakers).volume.max == Self.held)
        #expect(h.volumeWrites.count == 21, "each step is put back before the next")
    }

    @Test("a program whose steps jitter between 3 and 12 ms apart stays in one burst until it stops")
    func jitteryProgramStaysInBurst() {
        // A burst that ended after 10 ms of quiet ended between two of such a program's steps, and the
        // reset then landed where the next step did.
        var h = Self.guarding()
        for i in 0..<10 { Self.stepUp(&h, pace: .milliseconds(i.isMultiple(of: 2) ? 3 : 12)) }
        #expect(h.counts.up == 10)
        // The first two steps are put back at once (nothing marks a burst yet), the rest are deferred.
        #expect(h.volumeWrites.count == 2)
        #expect(h.sink(Name.speakers).volume.max == Self.held + 8 * Self.step)
        h.wait(PressCounter.burstQuiet)
        #expect(h.sink(Name.speakers).volume.max == Self.held)
        #expect(h.counts.up == 10)
    }
}

extension CountingTests {
    /// A client that reads the sink and sets `raw` (what it read, plus or minus a step), `pace` after the
    /// last; everything then settles.
    static func sets(_ h: inout Harness, _ raw: UInt32, pace: Duration) {
        h.pace = pace
        h.userSets(Name.speakers, raw: raw)
        h.settle()
    }

    // MARK: Stale readings

    @Test("a step from a level older than the last press, landing where the last press did, is one step")
    func staleStepOntoLastPress() {
        // Found as `readModifyWriteNoAckWait` on pipewire-pulse. A client that does not wait for its
        // sets' acknowledgements read the cache one of its own steps behind (held - 1 step) and set
        // held - 2 steps 28 ms later, after the guard had put back its previous step, which had landed
        // there too. Only the last press's level was a base, and this reading was not beyond it: it
        // counted 2 from the held level.
        var h = Self.guarding()
        Self.sets(&h, Self.held - Self.step, pace: .milliseconds(20))
        Self.sets(&h, Self.held - 2 * Self.step, pace: .milliseconds(20))  // from held - 1, read before the reset
        Self.sets(&h, Self.held - 2 * Self.step, pace: .milliseconds(28))  // from held - 1 again, read before
        #expect(h.presses.map(\.direction) == [.down, .down, .down])
        #expect(h.counts.down == 3, "three steps made, each one step")
        #expect(h.sink(Name.speakers).volume.max == Self.held)
    }

    @Test("in a burst, a step back toward the held level is no press in the other direction")
    func reversalInBurstIsNoPress() {
        // Found as `twoClients` (two clients stepping down) on PulseAudio, and as `pipelined` on
        // pipewire-pulse: a client stepping down from a level it read before other steps landed (its own,
        // or another client's) moves the sink up within a burst. It was counted as a press up.
        var h = Self.guarding()
        for i in 1...3 { Self.sets(&h, Self.held - UInt32(i) * Self.step, pace: .milliseconds(1)) }
        Self.sets(&h, Self.held - Self.step, pace: .milliseconds(1))  // down from held, read long ago
        Self.sets(&h, Self.held - 2 * Self.step, pace: .milliseconds(1))
        h.wait(PressCounter.burstQuiet * 2)
        #expect(h.counts.up == 0)
        #expect(h.counts.down == 4, "5 steps made: the one back toward held is lost, never turned around")
        #expect(h.sink(Name.speakers).volume.max == Self.held)
    }

    @Test("a burst that climbs again after a pause counts in full once it has passed, or outlived, the climb before")
    func climbAgainAfterPause() {
        // Found as `burstWithPauses` (the model's loaded machine lost up to 66 of 200) while every level
        // of the run was kept: a program that pauses long enough for the guard to put the level back,
        // then climbs again from the held level, stays below the first climb's top for as long as it
        // climbs, and each reading that merged two of its steps counted one. Only the last
        // `runLevelsKept` levels are kept: a client reads at most a few levels behind its own steps.
        var h = Self.guarding()
        for i in 1...20 { Self.sets(&h, Self.held + UInt32(i) * Self.step, pace: .milliseconds(1)) }
        h.wait(PressCounter.burstQuiet + .milliseconds(5))
        #expect(h.sink(Name.speakers).volume.max == Self.held)
        // The second climb: eight steps seen one by one, then the guard sees only every other step.
        for i in 1...8 { Self.sets(&h, Self.held + UInt32(i) * Self.step, pace: .milliseconds(1)) }
        for i in 1...3 { Self.sets(&h, Self.held + UInt32(8 + 2 * i) * Self.step, pace: .milliseconds(1)) }
        h.wait(PressCounter.burstQuiet * 2)
        #expect(h.counts.up == 34)
        #expect(h.sink(Name.speakers).volume.max == Self.held)
    }

    @Test("readings that merge steps below a recent level count one step each")
    func mergedBelowRecentLevelCountsOne() {
        // The price of never counting a step twice: after a burst was put back, a program that climbs
        // again with its steps merged in pairs cannot be told from one stepping from levels of the first
        // climb it read before the reset. Until it passes them, each reading counts one.
        var h = Self.guarding()
        for i in 1...8 { Self.sets(&h, Self.held + UInt32(i) * Self.step, pace: .milliseconds(1)) }
        h.wait(PressCounter.burstQuiet + .milliseconds(5))
        for i in 1...5 { Self.sets(&h, Self.held + UInt32(2 * i) * Self.step, pace: .milliseconds(1)) }
        h.wait(PressCounter.burstQuiet * 2)
        // 8, then 1 + 1 + 1 + 1 (four readings up to held + 8) and 2 (held + 10, beyond the first climb).
        #expect(h.counts.up == 14, "18 steps made, 4 lost")
    }

    @Test("a step that lands on top of the guard's reset of a step 8 ms before begins a burst")
    func slowRoundTripBeginsBurst() {
        // Found as `paced125Hz` on pipewire-pulse with the model's loaded machine: 22 of 200 steps lost.
        // When the guard's round trip (reading, reset, its acknowledgement) is slower than a program's
        // steps, each reset lands on the next step or just after it. A step seen on top of the reset,
        // before the guard could read the reset back, shows the program outpacing it.
        var h = Self.guarding()
        h.holdAcks = true
        Self.stepUp(&h, pace: .milliseconds(8))
        #expect(h.volumeWrites.count == 1, "the reset is written; its acknowledgement is slow")
        Self.stepUp(&h, pace: .milliseconds(8))
        h.holdAcks = false
        h.deliverWithheldAcks()
        h.settle()
        #expect(h.counts.up == 2)
        for _ in 0..<7 { Self.stepUp(&h, pace: .milliseconds(8)) }
        #expect(h.volumeWrites.count == 1, "deferred since the second step")
        h.wait(PressCounter.burstQuiet * 2)
        #expect(h.counts.up == 9)
        #expect(h.sink(Name.speakers).volume.max == Self.held)
    }

    // MARK: Where no rule can be right

    @Test("a client stepping back down from a level the guard has since put back: counted up, never more steps in all")
    func stepBackFromPutBackLevel() {
        // Found as `readModifyWriteBothWays` (one client stepping either way, random delays). The client
        // steps up twice, reads held + 2 steps, and 10 ms later steps down from that reading: held + 1
        // step, set after the guard had put the level back. The sink went up from the held level; that
        // reading cannot be told from a step up (docs/COUNTING.md).
        var h = Self.guarding()
        Self.sets(&h, Self.held + Self.step, pace: .milliseconds(20))
        Self.sets(&h, Self.held + 2 * Self.step, pace: .milliseconds(20))  // up from held + 1, read before the reset
        Self.sets(&h, Self.held + Self.step, pace: .milliseconds(20))  // down from held + 2, read before the reset
        #expect(h.counts.up + h.counts.down <= 3)
        #expect(h.counts.up == 3, "the step down reads as one up")
    }
}
