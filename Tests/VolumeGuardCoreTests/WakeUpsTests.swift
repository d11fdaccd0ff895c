import Testing

@testable import VolumeGuardCore

@Suite("The one timer for the machines' wake-ups")
struct WakeUpsTests {
    var wakeUps = WakeUps()

    @Test("Set for the earliest asked for; each machine is woken when its own is due, and none early")
    mutating func oneTimer() {
        #expect(wakeUps.ask(.core, after: .milliseconds(100), at: .seconds(1)) == .milliseconds(1100))
        #expect(wakeUps.ask(.pipeline, after: .milliseconds(300), at: .seconds(1)) == nil, "a timer runs earlier")
        #expect(wakeUps.ask(.input, after: .milliseconds(50), at: .seconds(1)) == .milliseconds(1050))
        #expect(wakeUps.ask(.core, after: .milliseconds(200), at: .seconds(1)) == nil, "the core's earliest stays")
        #expect(wakeUps.fired(due: .milliseconds(1050), at: .milliseconds(1050)) == ([.input], .milliseconds(1100)))
        #expect(wakeUps.fired(due: .milliseconds(1100), at: .milliseconds(1100)) == ([.core], .milliseconds(1300)))
        #expect(wakeUps.fired(due: .milliseconds(1100), at: .milliseconds(1100)) == ([], nil), "the timer set first is stale")
        #expect(wakeUps.fired(due: .milliseconds(1300), at: .milliseconds(1300)) == ([.pipeline], nil))
        #expect(wakeUps.ask(.core, after: .milliseconds(300), at: .milliseconds(1300)) == .milliseconds(1600), "no timer runs any more")
    }

    @Test("A timer that fires late wakes every machine due by the time it was set for")
    mutating func late() {
        _ = wakeUps.ask(.core, after: .milliseconds(10), at: .zero)
        _ = wakeUps.ask(.input, after: .milliseconds(20), at: .zero)
        #expect(wakeUps.fired(due: .milliseconds(10), at: .milliseconds(25)) == ([.core, .input], nil))
    }
}
