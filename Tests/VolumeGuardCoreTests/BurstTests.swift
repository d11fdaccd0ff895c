import Testing

@testable import VolumeGuardCore

/// Clients that step the volume faster than a person: key repeat, scripts, remotes that send bursts.
@Suite("Runs and bursts of presses")
struct BurstTests {
    static let held: UInt32 = 30000
    static let step = Raw.step5
    static let speakers = SimulatedSink(index: 1, name: Name.speakers, [held, held])

    static func guarding() -> Harness {
        Harness.guarding([speakers], configuration: GuardCore.Configuration(keyStep: step))
    }

    /// A client stepping up `times` times, one step each, at the harness's pace; the guard answers each
    /// step before the next, and `afterEach` looks at the result.
    static func stepUp(_ h: inout Harness, times: Int, afterEach: (Harness) -> Void = { _ in }) {
        for _ in 0..<times {
            h.userMoves(Name.speakers, by: Int64(step))
            h.settle()
            afterEach(h)
        }
    }

    /// A program's first step, then `more` steps, and their events, landing while the guard's read of
    /// the first is in flight: the reading sees them all. Delivers everything that follows.
    static func stepsDuringFirstRead(_ h: inout Harness, more: Int) {
        h.pace = .microseconds(50)
        h.userMoves(Name.speakers, by: Int64(step))
        let delivered = h.step()
        #expect(delivered, "the change event: the guard reads")
        guard case .sinkRead(let ticket, _)? = h.inbox.popLast() else {
            Issue.record("no read in flight")
            return
        }
        for _ in 0..<more { h.userMoves(Name.speakers, by: Int64(step)) }
        h.inbox.append(.sinkRead(ticket, h.sink(Name.speakers).reading))
        h.settle()
    }

    @Test("a burst already under way at its first reading has its reset deferred from that reading on")
    func burstUnderWayAtFirstReading() {
        var h = Self.guarding()
        Self.stepsDuringFirstRead(&h, more: 3)
        #expect(h.presses.map(\.count).reduce(0, +) == 4)
        #expect(h.volumeWrites.isEmpty, "no reset to land among the program's steps")
        h.wait(PressCounter.burstQuiet * 2)
        #expect(h.sink(Name.speakers).volume.max == Self.held)
        #expect(h.presses.map(\.count).reduce(0, +) == 4)
    }

    @Test("a first reading of several steps, taken while the sink still changed, is a burst's")
    func mergedFirstReadingWhileChanging() {
        var h = Self.guarding()
        Self.stepsDuringFirstRead(&h, more: 1)
        #expect(h.presses.map(\.count) == [2])
        #expect(h.volumeWrites.isEmpty, "no reset to land among the program's steps")
        h.wait(PressCounter.burstQuiet * 2)
        #expect(h.sink(Name.speakers).volume.max == Self.held)
    }

    @Test("a client stepping from the level it read before the reset landed is counted once per step")
    func stepFromStaleReading() {
        var h = Self.guarding()
        h.pace = .milliseconds(20)
        h.userSets(Name.speakers, raw: Self.held + Self.step)
        // The client reads the sink now, before the guard has put it back.
        let read = h.sink(Name.speakers).volume.max
        h.settle()
        #expect(h.sink(Name.speakers).volume.max == Self.held)
        // Its next step lands after the reset, one step beyond what it read: two from the held level.
        h.userSets(Name.speakers, raw: read + Self.step)
        h.settle()
        #expect(h.presses.map(\.count) == [1, 1])
        #expect(h.sink(Name.speakers).volume.max == Self.held)
    }

    @Test("a change two steps from the held level is two presses when no press came just before")
    func mergedAfterPause() {
        var h = Self.guarding()
        h.userSets(Name.speakers, raw: Self.held + Self.step)
        h.settle()
        h.userSets(Name.speakers, raw: Self.held + 2 * Self.step)
        h.settle()
        #expect(h.presses.map(\.count) == [1, 2])
    }

    @Test("at machine speed the guard counts every step and puts the level back once the changes pause")
    func burstHeldBack() {
        var h = Self.guarding()
        h.pace = .milliseconds(1)
        h.clearLog()
        Self.stepUp(&h, times: 9)
        #expect(h.counts.up == 9)
        #expect(h.presses.allSatisfy { $0.count == 1 })
        // Only the first press, before the burst showed itself, was put back at once.
        #expect(h.volumeWrites.count == 1)
        #expect(h.sink(Name.speakers).volume.max == Self.held + 8 * Self.step)
        h.wait(PressCounter.burstQuiet)
        #expect(h.sink(Name.speakers).volume.max == Self.held)
        #expect(h.counts.up == 9)
    }

    @Test("a burst that comes within a step of 100 % is put back at once, and goes on from the held level")
    func burstPutBackBeforeCeiling() {
        // Found by the benchmark's pulsectl client: a burst whose reset was deferred until it paused climbed to
        // pulsectl's cap, where its steps changed nothing, and two in three were lost.
        var h = Self.guarding()
        h.pace = .milliseconds(1)
        h.clearLog()
        Self.stepUp(&h, times: 11)
        // The first step and the one that left no room for another were put back.
        #expect(h.counts.up == 11)
        #expect(h.volumeWrites.count == 2)
        #expect(h.sink(Name.speakers).volume.max == Self.held)
        Self.stepUp(&h, times: 1)
        #expect(h.counts.up == 12)
        #expect(h.volumeWrites.count == 2, "the reset still deferred")
    }

    @Test("a burst that goes on keeps the reset waiting; it comes once the burst pauses")
    func burstExtends() {
        var h = Self.guarding()
        h.pace = .milliseconds(3)
        Self.stepUp(&h, times: 10)
        #expect(h.sink(Name.speakers).volume.max != Self.held)
        h.wait(.milliseconds(4))
        #expect(h.sink(Name.speakers).volume.max != Self.held)
        h.wait(PressCounter.burstQuiet)
        #expect(h.sink(Name.speakers).volume.max == Self.held)
        #expect(h.counts.up == 10)
    }

    @Test("a key repeating at 25 to 50 Hz is put back after every press")
    func repeatIsNoBurst() {
        var h = Self.guarding()
        h.pace = .milliseconds(20)
        Self.stepUp(&h, times: 10) { #expect($0.sink(Name.speakers).volume.max == Self.held) }
        #expect(h.counts.up == 10)
    }
}
