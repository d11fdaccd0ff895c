import BrokerCore
import Testing

@Suite("Presses held for Home Assistant's birth")
struct HomeAssistantHoldTests {
    let status = Fixture.topics.homeAssistantStatus

    /// Connected once, lost, and connected again at 1 s, with press 1 waiting.
    func reconnected() -> BrokerLink {
        var link = Fixture.link()
        link.connect()
        _ = link.handle(.lost(attempt: 1, reason: "broker restarted"), at: .zero)
        _ = link.handle(.outgoing(Fixture.press(1)), at: .zero)
        _ = link.handle(.timer, at: .seconds(1))
        return link
    }

    @Test("The first connection sends at once: Home Assistant is likely subscribed already")
    func firstConnection() {
        var link = Fixture.link()
        _ = link.handle(.start, at: .zero)
        _ = link.handle(.outgoing(Fixture.press(1)), at: .zero)
        #expect(link.handle(.connected(attempt: 1), at: .zero).sentMessages == [1])
    }

    @Test("After a reconnect, presses wait for the birth, which also announces discovery again")
    func untilBirth() {
        var link = reconnected()
        let connected = link.handle(.connected(attempt: 2), at: .seconds(1))
        #expect(connected.sentMessages.isEmpty)
        #expect(connected.contains(.setTimer(.seconds(16))))
        let birth = link.handle(.received(attempt: 2, topic: status, payload: "online"), at: .seconds(6))
        #expect(birth.publishedTopics == [Fixture.config.topic, Fixture.topics.events])
        #expect(birth.sentMessages == [1])
    }

    @Test("After a reconnect with no birth, presses go after 15 s")
    func untilLimit() {
        var link = reconnected()
        _ = link.handle(.connected(attempt: 2), at: .seconds(1))
        #expect(link.handle(.timer, at: .seconds(15)).isEmpty)
        #expect(link.handle(.timer, at: .seconds(16)).sentMessages == [1])
    }

    @Test("Home Assistant's offline holds presses until its online")
    func offline() {
        var link = Fixture.link()
        link.connect()
        #expect(link.handle(.received(attempt: 1, topic: status, payload: "offline"), at: .seconds(2)) == [.setTimer(.seconds(17))])
        #expect(link.handle(.outgoing(Fixture.press(1)), at: .seconds(3)).isEmpty)
        #expect(link.handle(.received(attempt: 1, topic: status, payload: "online"), at: .seconds(4)).sentMessages == [1])
    }

    @Test("With discovery off nothing is held and Home Assistant's status is not heard")
    func discoveryOff() {
        var link = Fixture.link(discovery: false)
        link.connect()
        _ = link.handle(.lost(attempt: 1, reason: "broker restarted"), at: .zero)
        _ = link.handle(.outgoing(Fixture.press(1)), at: .zero)
        _ = link.handle(.timer, at: .seconds(1))
        #expect(link.handle(.connected(attempt: 2), at: .seconds(1)).sentMessages == [1])
        #expect(link.handle(.received(attempt: 2, topic: status, payload: "offline"), at: .seconds(2)).isEmpty)
    }
}
