import VolumeGuardCore
import Testing

/// The counterexamples the generated clients found (ClientModelTests), each shrunk to the history that
/// shows it and replayed here step by step. docs/DESIGN.md, "Counting: the rule and its proof sketch".
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
        h.wait(GuardCore.burstQuiet * 2)
        #expect(h.core.presses.up == 21)
        #expect(h.presses.allSatisfy { $0.count == 1 })
        #expect(h.sink(Name.speakers).volume.max == Self.held)
        #expect(h.volumeWrites.count == 21, "each step is put back before the next")
    }

    @Test("a program whose steps jitter between 3 and 12 ms apart stays in one burst until it stops")
    func jitteryProgramStaysInBurst() {
        // A burst that ended after 10 ms of quiet ended between two of such a program's steps, and the
        // reset then landed where the next step did.
        var h = Self.guarding()
        for i in 0..<20 { Self.stepUp(&h, pace: .milliseconds(i.isMultiple(of: 2) ? 3 : 12)) }
        #expect(h.core.presses.up == 20)
        // The first two steps are put back at once (nothing marks a burst yet), the rest are held back.
        #expect(h.volumeWrites.count == 2)
        #expect(h.sink(Name.speakers).volume.max == Self.held + 18 * Self.step)
        h.wait(GuardCore.burstQuiet)
        #expect(h.sink(Name.speakers).volume.max == Self.held)
        #expect(h.core.presses.up == 20)
    }
}
