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

@Suite("When a connection holds the pause")
struct HeldPauseTests {
    @Test("A held pause ends when its connection lets it go")
    func heldUntilReleased() {
        var policy = PausePolicy(mode: .always)
        #expect(policy.handle(.held(true, by: 1)) == .pause)
        #expect(policy.handle(.held(false, by: 1)) == .resume)
    }

    @Test("The guard stays paused until the last connection that holds a pause lets it go")
    func lastHolderResumes() {
        var policy = PausePolicy(mode: .always)
        #expect(policy.handle(.held(true, by: 1)) == .pause)
        #expect(policy.handle(.held(true, by: 2)) == nil)
        #expect(policy.handle(.held(false, by: 1)) == nil, "connection 2 still holds it")
        #expect(policy.handle(.held(false, by: 2)) == .resume)
    }

    @Test("A connection that ends leaves a client's own pause in place")
    func clientPauseOutlastsHolder() {
        var policy = PausePolicy(mode: .always)
        #expect(policy.handle(.held(true, by: 1)) == .pause)
        #expect(policy.handle(.clientPaused(true)) == nil)
        #expect(policy.handle(.held(false, by: 1)) == nil, "the client's pause lasts until its resume")
        #expect(policy.handle(.clientPaused(false)) == .resume)
    }

    @Test("A resume ends the pauses that connections hold")
    func resumeEndsHeldPauses() {
        var policy = PausePolicy(mode: .always)
        #expect(policy.handle(.held(true, by: 1)) == .pause)
        #expect(policy.handle(.clientPaused(false)) == .resume)
        #expect(policy.handle(.held(false, by: 1)) == nil, "its end after the resume changes nothing")
    }

    @Test("A held pause that ends in while-subscribed mode waits for a subscriber")
    func heldWhileSubscribed() {
        var policy = PausePolicy(mode: .whileSubscribed)
        _ = policy.decide()
        #expect(policy.handle(.held(true, by: 1)) == nil, "paused already: nobody subscribed")
        #expect(policy.handle(.subscribed(true)) == nil, "still held")
        #expect(policy.handle(.held(false, by: 1)) == .resume)
    }
}
