import Testing

@testable import VolumeGuardCore

@Suite("Telling a fight from presses")
struct ContestRuleTests {
    static let level = SinkLevel(volume: .channels(40000, 40000), muted: false)

    var contest = Contest()
    var acknowledged: Duration = .zero

    /// `count` changes to `level`, each `delay` after a reset's acknowledgement and seen in the reading
    /// right after it unless `afterReset` is false; true when the last completes a fight.
    mutating func answers(_ count: Int, to level: SinkLevel = level, delay: Duration, afterReset: Bool = true) -> Bool {
        var yielded = false
        for _ in 0..<count {
            acknowledged += .seconds(1)
            contest.acknowledged(at: acknowledged)
            yielded = contest.noteChange(to: level, at: acknowledged + delay, afterReset: afterReset)
        }
        return yielded
    }

    @Test("the same level set right after every reset, twenty times in a row, is a fight")
    mutating func streakYields() {
        let before = answers(Contest.streakToYield - 1, delay: .milliseconds(1))
        let last = answers(1, delay: .milliseconds(1))
        #expect(!before)
        #expect(last)
        let again = answers(1, delay: .milliseconds(1))
        #expect(!again, "a new streak starts after giving in")
    }

    @Test("changes later than the window after a reset are presses")
    mutating func late() {
        let yielded = answers(40, delay: Contest.window + .milliseconds(1))
        #expect(!yielded)
    }

    @Test("changes not seen in the reading right after a reset are presses")
    mutating func notAfterReset() {
        let yielded = answers(40, delay: .milliseconds(1), afterReset: false)
        #expect(!yielded)
    }

    @Test("another level breaks the streak")
    mutating func otherLevelBreaks() {
        _ = answers(Contest.streakToYield - 1, delay: .milliseconds(1))
        let other = SinkLevel(volume: .channels(41000, 41000), muted: false)
        let broken = answers(Contest.streakToYield - 1, to: other, delay: .milliseconds(1))
        #expect(!broken)
    }
}
