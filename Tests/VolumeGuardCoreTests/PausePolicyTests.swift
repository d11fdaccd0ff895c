import Testing

@testable import VolumeGuardCore

@Suite("When the guard is paused")
struct PausePolicyTests {
    @Test("Always mode guards from the start, and a client's pause and resume are told once each")
    func always() {
        var policy = PausePolicy(mode: .always)
        #expect(policy.decide() == nil)
        #expect(policy.handle(.clientPaused(true)) == .pause)
        #expect(policy.handle(.clientPaused(true)) == nil)
        #expect(policy.handle(.subscribed(true)) == nil)
        #expect(policy.handle(.clientPaused(false)) == .resume)
    }

    @Test("While-subscribed mode pauses until the first subscriber, and again when the last one leaves")
    func whileSubscribed() {
        var policy = PausePolicy(mode: .whileSubscribed)
        #expect(policy.decide() == .pause)
        #expect(policy.handle(.subscribed(true)) == .resume)
        #expect(policy.handle(.subscribed(true)) == nil)
        #expect(policy.handle(.subscribed(false)) == .pause)
    }

    @Test("A client's pause holds whoever subscribes or leaves; its resume waits for a subscriber")
    func pauseOutlastsSubscribers() {
        var policy = PausePolicy(mode: .whileSubscribed)
        _ = policy.decide()
        #expect(policy.handle(.subscribed(true)) == .resume)
        #expect(policy.handle(.clientPaused(true)) == .pause)
        #expect(policy.handle(.subscribed(false)) == nil)
        #expect(policy.handle(.subscribed(true)) == nil, "still paused by the client")
        #expect(policy.handle(.subscribed(false)) == nil)
        #expect(policy.handle(.clientPaused(false)) == nil, "nobody subscribed: still paused")
        #expect(policy.handle(.subscribed(true)) == .resume)
    }

    @Test("A reload that changes the mode is told at once")
    func modeChange() {
        var policy = PausePolicy(mode: .always)
        #expect(policy.handle(.mode(.whileSubscribed)) == .pause)
        #expect(policy.handle(.mode(.always)) == .resume)
    }
}
