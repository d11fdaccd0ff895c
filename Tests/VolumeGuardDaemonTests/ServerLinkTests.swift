import Testing
@testable import VolumeGuardDaemon

@Suite("The guard's link to the audio server")
struct ServerLinkTests {
    @Test("A lost attempt is retired: what it still reports is stale, so one loss is acted on once")
    func lossRetiresTheAttempt() {
        var link = ServerLink()
        let attempt = link.newAttempt()
        #expect(link.isCurrent(attempt))
        #expect(link.lost() == ServerLink.firstBackoff)
        #expect(!link.isCurrent(attempt))
        let next = link.newAttempt()
        #expect(next != attempt && link.isCurrent(next))
    }

    @Test("Attempts back off, doubling up to the maximum")
    func backoff() {
        var link = ServerLink()
        var delays: [Duration] = []
        for _ in 0..<7 {
            _ = link.newAttempt()
            delays.append(link.lost())
        }
        #expect(delays == [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
    }
}
