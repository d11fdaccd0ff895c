import BrokerCore
import Testing

@Suite("The broker link's queue of presses")
struct BrokerQueueTests {
    @Test("Presses while connected go out at once, QoS 1, not retained, on the events topic")
    func sendsAtOnce() {
        var link = Fixture.link(discovery: false)
        link.connect()
        let press = Fixture.press(7)
        #expect(
            link.handle(.outgoing(press), at: .zero) == [
                .publish(attempt: 1, .init(message: 1, topic: Fixture.topics.events, payload: press.payload, retain: false))
            ]
        )
        #expect(link.status.inFlight == 1)
        #expect(link.handle(.acknowledged(attempt: 1, message: 1), at: .zero).isEmpty)
        #expect(link.status.queued == 0)
    }

    @Test("Beyond 1,000 waiting, the oldest are dropped and counted, with one warning")
    func bound() {
        var link = Fixture.link(discovery: false)
        _ = link.handle(.start, at: .zero)
        var reports = 0
        for seq in 1...1_005 {
            reports += link.handle(.outgoing(Fixture.press(UInt64(seq))), at: .zero).count
        }
        #expect(reports == 1)
        #expect(link.status.queued == 1_000)
        #expect(link.status.dropped == 5)
        let sent = link.handle(.connected(attempt: 1), at: .zero).sentMessages
        #expect(sent == Array(6...105), "the oldest kept first, at most 100 in flight")
    }

    @Test("Each acknowledgement lets the next waiting press go")
    func inFlightLimit() {
        var link = Fixture.link(discovery: false)
        _ = link.handle(.start, at: .zero)
        for seq in 1...150 {
            _ = link.handle(.outgoing(Fixture.press(UInt64(seq))), at: .zero)
        }
        #expect(link.handle(.connected(attempt: 1), at: .zero).sentMessages.count == 100)
        #expect(link.handle(.acknowledged(attempt: 1, message: 3), at: .zero).sentMessages == [101])
        #expect(link.handle(.acknowledged(attempt: 1, message: 3), at: .zero).isEmpty, "told twice")
        #expect(link.handle(.acknowledged(attempt: 2, message: 4), at: .zero).isEmpty, "another attempt's")
    }

    @Test("A link replaced while the broker is away leaves every press to the next, which sends them first")
    func leftOverWhileAway() {
        var link = Fixture.link(discovery: false)
        link.connect()
        for seq in 1...3 {
            _ = link.handle(.outgoing(Fixture.press(UInt64(seq))), at: .zero)
        }
        _ = link.handle(.acknowledged(attempt: 1, message: 1), at: .zero)
        _ = link.handle(.lost(attempt: 1, reason: "reset"), at: .zero)
        _ = link.handle(.outgoing(Fixture.press(4)), at: .zero)
        #expect(link.handle(.stop, at: .zero) == [.finished])
        let leftOver = link.leftOver
        #expect(leftOver == (2...4).map { Fixture.press($0).payload })

        var next = BrokerLink(.init(topics: Fixture.topics, discovery: false), leftOver: leftOver)
        _ = next.handle(.start, at: .zero)
        _ = next.handle(.outgoing(Fixture.press(5)), at: .zero)
        let sent = next.handle(.connected(attempt: 1), at: .zero).compactMap {
            if case .publish(_, let publication) = $0, publication.message != nil { publication.payload } else { nil }
        }
        #expect(sent == (2...5).map { Fixture.press($0).payload })
    }

    @Test("A link stopped while connected sends what waits before its DISCONNECT, and leaves only what came after")
    func leftOverAfterStop() {
        var link = Fixture.link(discovery: false)
        link.connect()
        _ = link.handle(.outgoing(Fixture.press(1)), at: .zero)
        #expect(!link.handle(.stop, at: .zero).publishedTopics.contains(Fixture.topics.events), "sent already")
        _ = link.handle(.outgoing(Fixture.press(2)), at: .zero)
        #expect(link.leftOver == [Fixture.press(2).payload])
    }

    @Test("What a lost connection left unacknowledged goes again, in order, before the newer")
    func orderAfterReconnect() {
        var link = Fixture.link(discovery: false)
        link.connect()
        for seq in 1...4 {
            _ = link.handle(.outgoing(Fixture.press(UInt64(seq))), at: .zero)
        }
        _ = link.handle(.acknowledged(attempt: 1, message: 2), at: .zero)
        _ = link.handle(.lost(attempt: 1, reason: "reset"), at: .zero)
        _ = link.handle(.outgoing(Fixture.press(5)), at: .zero)
        _ = link.handle(.timer, at: .seconds(1))
        #expect(link.handle(.connected(attempt: 2), at: .seconds(1)).sentMessages == [1, 3, 4, 5])
    }
}
