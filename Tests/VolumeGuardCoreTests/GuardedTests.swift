import Testing

@testable import VolumeGuardCore

@Suite("The held sink")
struct GuardedTests {
    static let original = SinkLevel(volume: .channels(Raw.full, 30000), muted: true)
    static let reading = SinkState(index: 4, name: Name.speakers, volume: original.volume, muted: original.muted)

    var held = GuardCore.Guarded(Self.reading, original: Self.original, margin: HeldLevel.defaultMargin)
    var inFlight = InFlight()
    var ids = RequestIDs()

    mutating func correct(_ level: SinkLevel, attempt: Int = 0) -> [GuardAction] {
        held.correct(level, attempt: attempt, inFlight: &inFlight, ids: &ids)
    }

    @Test("the target is the held level with the original's mute")
    func target() {
        #expect(held.held.volume == .channels(65535, 30000))
        #expect(held.target == SinkLevel(volume: .channels(65535, 30000), muted: true))
    }

    @Test("a correction writes only what differs from the target, and its reading verifies it")
    mutating func correction() {
        let both = correct(SinkLevel(volume: .channels(40000, 20000), muted: false))
        held.sinkChanged()
        #expect(both.count == 2)
        #expect(both.contains { if case .setVolume(4, let volume, _) = $0 { volume == .channels(65535, 30000) } else { false } })
        #expect(both.contains { if case .setMute(4, true, _) = $0 { true } else { false } })
        #expect(held.echo.seen == held.target, "the writes' echo is accounted for")
        let verdict = held.judge(held.target, by: GuardCore.Configuration())
        #expect(verdict == .change(verifying: true))
        let none = correct(held.target)
        #expect(none.isEmpty)
    }

    @Test("unguarded mute passes through into the original, but not from the reading of a skipped write")
    mutating func mutePassesThrough() {
        let configuration = GuardCore.Configuration(guardsMute: false)
        let unmuted = SinkLevel(volume: held.target.volume, muted: false)
        _ = held.judge(unmuted, by: configuration)
        #expect(held.original.muted == false)
        #expect(held.target.muted == false)

        let pressed = SinkLevel(volume: .channels(40000, 20000), muted: true)
        _ = correct(pressed)
        let verdict = held.judge(pressed, by: configuration)
        #expect(verdict == .retry(attempt: 1))
        #expect(held.original.muted == false, "a skipped write's reading teaches nothing")
    }

    @Test("a client answering every correction with its own level is held at that level; a new margin holds the original again")
    mutating func contestAndRehold() {
        let fighter = SinkLevel(volume: .channels(40000, 40000), muted: true)
        var report: GuardReport?
        for round in 1...Contest.streakToYield {
            let acknowledged = Duration.seconds(round)
            _ = correct(fighter)
            held.acknowledged(at: acknowledged)
            held.sinkChanged()
            let verdict = held.judge(fighter, by: GuardCore.Configuration())
            report = held.counted(fighter, at: acknowledged + .milliseconds(1), afterReset: verdict == .change(verifying: true), margin: 1)
        }
        #expect(report == .contested(sink: Name.speakers, held: .channels(40000, 40000)))
        #expect(held.contested)
        held.rehold(margin: 655)
        #expect(!held.contested)
        #expect(held.held == HeldLevel(holding: Self.original.volume, margin: 655))
    }
}
