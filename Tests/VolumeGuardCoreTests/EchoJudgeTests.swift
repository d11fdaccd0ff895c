import Testing

@testable import VolumeGuardCore

@Suite("Judging echoes")
struct EchoJudgeTests {
    static let held = HeldLevel(holding: .channels(30000))
    static let target = SinkLevel(volume: .channels(30000), muted: false)
    /// A press up, as read before the correction.
    static let pressed = SinkLevel(volume: .channels(30000 + Raw.step5), muted: false)

    var judge = EchoJudge(holding: Self.held, seen: Self.target)
    var configuration = GuardCore.Configuration()

    static func level(_ raw: UInt32, muted: Bool = false) -> SinkLevel {
        SinkLevel(volume: .channels(raw), muted: muted)
    }

    /// Writes the correction of `pressed`, then judges `reading` as its verification.
    mutating func verify(_ reading: SinkLevel, attempt: Int = 0, changedSince: Bool = true) -> EchoJudge.Verdict {
        judge.wrote(correcting: Self.pressed, to: Self.target, attempt: attempt)
        if changedSince { judge.sinkChanged() }
        return judge.judge(reading, by: configuration)
    }

    @Test("a reading no write awaits is a change to count")
    mutating func plainReading() {
        let verdict = judge.judge(Self.pressed, by: configuration)
        #expect(verdict == .change(verifying: false))
        #expect(judge.seen == Self.target, "counting it is the core's business")
    }

    @Test("issuing a write accounts for its echo: the verification reading equals the level seen")
    mutating func echoAccountedFor() {
        judge.wrote(correcting: Self.pressed, to: Self.target, attempt: 0)
        #expect(judge.seen == Self.target)
        judge.sinkChanged()
        let verdict = judge.judge(Self.target, by: configuration)
        #expect(verdict == .change(verifying: true))
        #expect(judge.seen == Self.target)
        let next = judge.judge(Self.target, by: configuration)
        #expect(next == .change(verifying: false), "only the first reading after the writes verifies them")
    }

    @Test("a write that did not take (no change since, the sink reads as before) is issued again, learning nothing")
    mutating func skippedWriteRetried() {
        let verdict = verify(Self.pressed, changedSince: false)
        #expect(verdict == .retry(attempt: 1))
        #expect(judge.seen == Self.target)
        #expect(judge.rendering == .unknown)
    }

    @Test("a reading as before, but with a change since, is a press made back to that level")
    mutating func changedSinceIsNoSkip() {
        let verdict = verify(Self.pressed, changedSince: true)
        #expect(verdict == .change(verifying: true))
    }

    @Test("after the configured retries a write that never takes is given up, the sink's level accounted for")
    mutating func abandoned() {
        configuration.resetRetries = 2
        let verdict = verify(Self.pressed, attempt: 2, changedSince: false)
        #expect(verdict == .abandon)
        #expect(judge.seen == Self.pressed)
    }

    @Test("with mute not guarded, a skipped write is told by the volume alone")
    mutating func mutePassesThrough() {
        let muted = SinkLevel(volume: Self.target.volume, muted: true)
        judge.wrote(correcting: muted, to: Self.target, attempt: 0)
        let guarded = judge.judge(muted, by: configuration)
        #expect(guarded == .retry(attempt: 1))
        configuration.guardsMute = false
        judge.wrote(correcting: muted, to: Self.target, attempt: 0)
        let passed = judge.judge(muted, by: configuration)
        #expect(passed == .change(verifying: true))
    }

    @Test("an inexact reading near the held level is taken for its echo, and confirmed by the next")
    mutating func renderingLearned() {
        let rendered = Self.level(30003)
        let first = verify(rendered)
        #expect(first == .change(verifying: true))
        #expect(judge.rendering == .candidate(rendered.volume))
        #expect(judge.seen == rendered, "no press")
        #expect(judge.heldAsRead == nil)
        // The held level is written once more (the core corrects the reading); it reads back the same.
        judge.wrote(correcting: rendered, to: Self.target, attempt: 0)
        judge.sinkChanged()
        let second = judge.judge(rendered, by: configuration)
        #expect(second == .change(verifying: true))
        #expect(judge.heldAsRead == rendered.volume)
        #expect(judge.seen == rendered)
    }

    @Test("a candidate rendering read back again without a change since confirms it rather than retrying")
    mutating func renderingConfirmedBySkip() {
        let rendered = Self.level(30003)
        _ = verify(rendered)
        judge.wrote(correcting: rendered, to: Self.target, attempt: 0)
        let verdict = judge.judge(rendered, by: configuration)
        #expect(verdict == .change(verifying: true))
        #expect(judge.heldAsRead == rendered.volume)
    }

    @Test("a reading outside the echo tolerance, or outside what could be held, is no rendering")
    mutating func notARendering() {
        configuration.echoTolerance = 2
        let far = verify(Self.level(30003))
        #expect(far == .change(verifying: true))
        #expect(judge.rendering == .unknown)
        #expect(judge.seen == Self.target, "counted from the held level: a press")

        var atCeiling = EchoJudge(holding: HeldLevel(holding: .channels(Raw.full)), seen: Self.level((Raw.full - 1)))
        atCeiling.wrote(correcting: Self.level(Raw.full - 10), to: Self.level((Raw.full - 1)), attempt: 0)
        atCeiling.sinkChanged()
        let capped = atCeiling.judge(Self.level(Raw.full), by: GuardCore.Configuration())
        #expect(capped == .change(verifying: true))
        #expect(atCeiling.rendering == .unknown, "100 % is a capped key's press, never the held level's rendering")
    }

    @Test("a reading whose volume did not move from the one corrected is no rendering of the write")
    mutating func unmovedIsNoRendering() {
        let near = Self.level(30003)
        judge.wrote(correcting: near, to: Self.target, attempt: 0)
        judge.sinkChanged()
        let verdict = judge.judge(near, by: configuration)
        #expect(verdict == .change(verifying: true))
        #expect(judge.rendering == .unknown)
    }

    @Test("holding another level learns its rendering anew")
    mutating func newHeldLevel() {
        let exact = verify(Self.target)
        #expect(exact == .change(verifying: true))
        #expect(judge.heldAsRead == Self.target.volume, "read back exactly: known at once")
        judge.hold(HeldLevel(holding: .channels(40000)))
        #expect(judge.held.volume == .channels(40000))
        #expect(judge.rendering == .unknown)
    }
}
