import Testing

@testable import VolumeGuardCore

@Suite("Key step")
struct KeyStepTests {
    // MARK: The step itself

    @Test("an unknown step counts every change as one press")
    func unknownCountsOne() {
        let step = KeyStep()
        #expect(step.current == nil)
        #expect(step.count(for: 9830) == 1)
    }

    @Test("a configured step counts a change in whole steps, rounded")
    func configuredCounts() {
        let step = KeyStep(configured: Raw.step6)
        #expect(step.current == Raw.step6)
        #expect(step.count(for: Raw.step6) == 1)
        #expect(step.count(for: 2 * Raw.step6) == 2)
        #expect(step.count(for: 2 * Raw.step6 + Raw.step6 / 2 + 1) == 3)
    }

    @Test("a change smaller than half a step still counts one press")
    func smallChangeCountsOne() {
        #expect(KeyStep(configured: Raw.step5).count(for: 1) == 1)
    }

    @Test("a configured step is never replaced by learning")
    func configuredNotLearned() {
        var step = KeyStep(configured: Raw.step6)
        step.learn(from: 1000)
        #expect(step.current == Raw.step6)
    }

    @Test("the learned step is the median of recent changes, shrugging off merged and fine presses")
    func learnedMedian() {
        var step = KeyStep()
        for delta: UInt32 in [Raw.step5, 2 * Raw.step5, Raw.step5, 655, Raw.step5] { step.learn(from: delta) }
        #expect(step.current == Raw.step5)
    }

    @Test("of two middles the median takes the smaller: a merged change is only ever larger than a step")
    func lowerMiddle() {
        var step = KeyStep()
        step.learn(from: Raw.step5)
        step.learn(from: 2 * Raw.step5)
        #expect(step.current == Raw.step5)
    }

    @Test("a press is a sample once the next one comes, unless that one follows within a burst's gap")
    func confirmedByTheNextPress() {
        var step = KeyStep()
        step.notePress(of: 2 * Raw.step5, at: .seconds(1), isolated: true)
        #expect(step.current == nil)
        step.notePress(of: Raw.step5, at: .seconds(1) + .milliseconds(2), isolated: false)
        #expect(step.current == nil, "a burst's start teaches nothing")
        step.notePress(of: Raw.step5, at: .seconds(2), isolated: true)
        step.notePress(of: Raw.step5, at: .seconds(3), isolated: true)
        #expect(step.current == Raw.step5)
    }

    @Test("changes under the learnable minimum say nothing about the step")
    func tinyChangesIgnored() {
        var step = KeyStep()
        step.learn(from: 1)
        step.learn(from: KeyStep.minimumLearnable - 1)
        #expect(step.current == nil)
        step.learn(from: KeyStep.minimumLearnable)
        #expect(step.current == KeyStep.minimumLearnable)
    }

    @Test("only the last eight changes are remembered")
    func window() {
        var step = KeyStep()
        for _ in 0..<8 { step.learn(from: 1000) }
        for _ in 0..<5 { step.learn(from: 2000) }
        #expect(step.current == 2000)
    }

    // MARK: Counting merged presses on a guarded sink

    @Test("the first press counts one, whatever its size")
    func firstPressCountsOne() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000])])
        h.userMoves(Name.speakers, by: 3 * Int64(Raw.step5))
        h.settle()
        #expect(h.presses.map(\.count) == [1])
        #expect(h.counts.up == 1)
    }

    @Test("a change of three learned steps counts three presses")
    func mergedLearned() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000])])
        h.userMoves(Name.speakers, by: Int64(Raw.step5))
        h.settle()
        #expect(h.core.counter.keyStep.current == nil, "not yet a sample: more presses may follow at once")
        h.userMoves(Name.speakers, by: 9830)  // +15 %: three 5 % presses merged into one event
        h.settle()
        #expect(h.presses.map(\.count) == [1, 3])
        #expect(h.presses.map(\.direction) == [.up, .up])
        #expect(h.counts.up == 4)
    }

    @Test("a merged change down counts in learned steps too")
    func mergedDownLearned() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000])])
        h.userMoves(Name.speakers, by: -Int64(Raw.step5))
        h.settle()
        h.userMoves(Name.speakers, by: -2 * Int64(Raw.step5))
        h.settle()
        #expect(h.presses.map(\.count) == [1, 2])
        #expect(h.counts.down == 3)
    }

    @Test("with a configured step even the first merged change counts its presses")
    func mergedConfigured() {
        var h = Harness.guarding(
            [SimulatedSink(index: 1, name: Name.speakers, [30000])],
            configuration: .init(keyStep: Raw.step6)
        )
        h.userMoves(Name.speakers, by: 2 * Int64(Raw.step6))
        h.settle()
        #expect(h.presses.map(\.count) == [2])
    }

    @Test("a capped press at the ceiling counts one and teaches nothing about the step")
    func cappedPressNotLearned() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [Raw.full])])
        h.userSets(Name.speakers, raw: Raw.full)
        h.settle()
        #expect(h.presses.map(\.count) == [1])
        #expect(h.core.counter.keyStep.current == nil)
    }
}

@Suite("Learning the key step only from isolated presses")
struct StepIsolationTests {
    @Test("a program's burst after a pause teaches nothing, though its first reading already merges steps")
    func burstStartTeachesNothing() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000, 30000])])
        h.userMoves(Name.speakers, by: Int64(Raw.step5))
        h.wait(.seconds(1))
        // The program's first two steps land before the guard reads: its first reading shows +10 %.
        h.pace = .milliseconds(2)
        for _ in 0..<5 {
            h.userMoves(Name.speakers, by: 2 * Int64(Raw.step5))
            h.settle()
        }
        #expect(h.core.counter.keyStep.current == Raw.step5)
        // Twice more: three merged burst starts would outvote the one true sample, whatever the median.
        for _ in 0..<2 {
            h.wait(.seconds(1))
            h.pace = .seconds(1)
            h.userMoves(Name.speakers, by: 2 * Int64(Raw.step5))
            h.pace = .milliseconds(2)
            for _ in 0..<4 {
                h.userMoves(Name.speakers, by: 2 * Int64(Raw.step5))
                h.settle()
            }
        }
        #expect(h.core.counter.keyStep.current == Raw.step5)
        h.wait(.seconds(1))
        h.pace = .seconds(1)
        h.userMoves(Name.speakers, by: Int64(Raw.step5))
        h.settle()
        #expect(h.core.counter.keyStep.current == Raw.step5)
        #expect(h.presses.last?.count == 1)
    }

    @Test("changes inside a burst or auto-repeat teach nothing, so merged changes cannot inflate the step")
    func burstTeachesNothing() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000, 30000])])
        for _ in 0..<4 {
            h.userMoves(Name.speakers, by: 3277)
            h.settle()
        }
        #expect(h.core.counter.keyStep.current == 3277)
        // A held key whose repeats the guard sees merged in pairs, from the first (a person's pace after
        // the taps) on.
        for press in 0..<10 {
            if press == 1 { h.pace = .milliseconds(30) }
            h.userMoves(Name.speakers, by: 6554)
            h.settle()
        }
        #expect(h.core.counter.keyStep.current == 3277)
        // The first counts 2. The repeats land where the run has already been: one step each, as a key
        // stepping from a reading taken before the guard put the level back would (docs/COUNTING.md,
        // counting: fewer steps win).
        #expect(h.presses.suffix(10).map(\.count) == [2] + Array(repeating: 1, count: 9))
    }
}
