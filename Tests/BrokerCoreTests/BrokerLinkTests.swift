import BrokerCore
import Testing

@Suite("The broker link's connection")
struct BrokerLinkTests {
    let topics = Fixture.topics

    @Test("On connecting it says online, announces discovery, subscribes to Home Assistant's status")
    func connects() {
        var link = Fixture.link()
        #expect(link.handle(.start, at: .zero) == [.connect(attempt: 1)])
        let actions = link.handle(.connected(attempt: 1), at: .seconds(1))
        #expect(
            actions == [
                .report(BrokerReport(.info, "connected to the broker")),
                .publish(attempt: 1, .init(message: nil, topic: topics.availability, payload: "online", retain: true)),
                .publish(attempt: 1, .init(message: nil, topic: Fixture.config.topic, payload: "{}", retain: true)),
                .subscribe(attempt: 1, topics: ["homeassistant/status"]),
            ]
        )
        #expect(link.status.connection == .connected(since: .seconds(1)))
    }

    @Test("Commands on subscribe to the command topic; pause and resume are obeyed, anything else is not")
    func commands() {
        var link = Fixture.link(commands: true, discovery: false)
        _ = link.handle(.start, at: .zero)
        #expect(link.handle(.connected(attempt: 1), at: .zero).contains(.subscribe(attempt: 1, topics: [topics.command])))
        #expect(link.handle(.received(attempt: 1, topic: topics.command, payload: "pause"), at: .zero) == [.command(.pause)])
        #expect(link.handle(.received(attempt: 1, topic: topics.command, payload: "resume"), at: .zero) == [.command(.resume)])
        let other = link.handle(.received(attempt: 1, topic: topics.command, payload: "reboot"), at: .zero)
        #expect(other.count == 1)
        #expect(!other.contains { if case .command = $0 { true } else { false } })
    }

    @Test("Commands off: the command topic is neither subscribed nor obeyed")
    func commandsOff() {
        var link = Fixture.link(commands: false, discovery: false)
        _ = link.handle(.start, at: .zero)
        #expect(!link.handle(.connected(attempt: 1), at: .zero).contains { if case .subscribe = $0 { true } else { false } })
        #expect(link.handle(.received(attempt: 1, topic: topics.command, payload: "pause"), at: .zero).isEmpty)
    }

    @Test("What an older attempt reports is ignored")
    func staleAttempt() {
        var link = Fixture.link()
        link.connect()
        _ = link.handle(.lost(attempt: 1, reason: "connection reset"), at: .zero)
        _ = link.handle(.timer, at: .seconds(1))
        #expect(link.state == .connecting(attempt: 2))
        #expect(link.handle(.connected(attempt: 1), at: .seconds(1)).isEmpty)
        #expect(link.handle(.lost(attempt: 1, reason: "again"), at: .seconds(1)).isEmpty)
        #expect(link.handle(.received(attempt: 1, topic: topics.command, payload: "pause"), at: .seconds(1)).isEmpty)
        #expect(link.state == .connecting(attempt: 2))
    }

    @Test("Attempts back off 1 s doubling to 60 s; the first failure is a warning, its repeats are not")
    func backoff() {
        var link = Fixture.link()
        _ = link.handle(.start, at: .zero)
        var now = Duration.zero
        var waits: [Duration] = []
        var warnings = 0
        for attempt in 1...9 {
            let actions = link.handle(.failed(attempt: attempt, reason: "connection refused", tls: false), at: now)
            warnings += actions.filter { if case .report = $0 { true } else { false } }.count
            guard case .waiting(_, let due) = link.state else { Issue.record("not waiting"); return }
            #expect(actions.last == .setTimer(due))
            waits.append(due - now)
            now = due
            #expect(link.handle(.timer, at: now) == [.connect(attempt: attempt + 1)])
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
        #expect(warnings == 1)
        #expect(link.status.lastError == .failed(reason: "connection refused", tls: false))
    }

    @Test("A connection that lasted 10 s resets the back-off; a short one does not")
    func backoffReset() {
        var link = Fixture.link()
        _ = link.handle(.start, at: .zero)
        _ = link.handle(.failed(attempt: 1, reason: "down", tls: false), at: .zero)
        _ = link.handle(.timer, at: .seconds(1))
        _ = link.handle(.connected(attempt: 2), at: .seconds(1))
        _ = link.handle(.lost(attempt: 2, reason: "reset"), at: .seconds(2))
        #expect(link.state == .waiting(attempt: 2, due: .seconds(4)), "short: 2 s")
        _ = link.handle(.timer, at: .seconds(4))
        _ = link.handle(.connected(attempt: 3), at: .seconds(4))
        _ = link.handle(.lost(attempt: 3, reason: "reset"), at: .seconds(14))
        #expect(link.state == .waiting(attempt: 3, due: .seconds(15)), "lasted: 1 s again")
    }

    @Test("A wrong password and a TLS failure are errors with their fix")
    func errorHints() {
        var link = Fixture.link()
        _ = link.handle(.start, at: .zero)
        let refused = link.handle(.refused(attempt: 1, code: 4, reason: "bad user name or password"), at: .zero)
        #expect(
            refused.contains(
                .report(
                    BrokerReport(
                        .warning, "the broker refused the connection: bad user name or password", hint: "check mqtt-user and the password in mqtt-password-file"
                    ))))
        _ = link.handle(.timer, at: .seconds(1))
        _ = link.handle(.failed(attempt: 2, reason: "certificate verify failed", tls: true), at: .seconds(1))
        #expect(link.status.lastError?.hint?.contains("mqtt-ca-file") == true)
    }

    @Test("A stop says offline, disconnects once the broker has it, and finishes when closed")
    func stop() {
        var link = Fixture.link()
        link.connect()
        let actions = link.handle(.stop, at: .seconds(5))
        #expect(
            actions == [
                .publish(attempt: 1, .init(message: 1, topic: topics.availability, payload: "offline", retain: true)),
                .setTimer(.seconds(8)),
            ]
        )
        #expect(link.handle(.acknowledged(attempt: 1, message: 1), at: .seconds(5)) == [.disconnect(attempt: 1)])
        #expect(link.handle(.closed(attempt: 1), at: .seconds(6)) == [.close(attempt: 1), .finished])
        #expect(link.hasFinished)
        #expect(link.handle(.start, at: .seconds(7)).isEmpty, "finished is final")
    }

    @Test("A stop sends what waits first, held for Home Assistant or beyond the limit in flight, then offline")
    func stopSendsWhatWaits() {
        var link = Fixture.link()
        link.connect()
        _ = link.handle(.lost(attempt: 1, reason: "reset"), at: .zero)
        for seq in 1...150 { _ = link.handle(.outgoing(Fixture.press(UInt64(seq))), at: .zero) }
        _ = link.handle(.timer, at: .seconds(1))
        #expect(link.handle(.connected(attempt: 2), at: .seconds(1)).sentMessages.isEmpty, "held for Home Assistant's birth")
        let actions = link.handle(.stop, at: .seconds(2))
        #expect(actions.sentMessages == Array(1...151), "the presses, then offline")
        #expect(actions.publishedTopics.last == topics.availability)
    }

    @Test("A stop whose connection never closes finishes at its 3 s deadline")
    func stopDeadline() {
        var link = Fixture.link()
        link.connect()
        _ = link.handle(.stop, at: .seconds(5))
        #expect(link.handle(.timer, at: .seconds(7)).isEmpty, "before the deadline")
        #expect(link.handle(.timer, at: .seconds(8)) == [.close(attempt: 1), .finished])
    }

    @Test("A stop while connecting closes the attempt; while waiting it just finishes")
    func stopUnconnected() {
        var connecting = Fixture.link()
        _ = connecting.handle(.start, at: .zero)
        #expect(connecting.handle(.stop, at: .zero) == [.close(attempt: 1), .finished])
        var waiting = Fixture.link()
        _ = waiting.handle(.start, at: .zero)
        _ = waiting.handle(.failed(attempt: 1, reason: "down", tls: false), at: .zero)
        #expect(waiting.handle(.stop, at: .zero) == [.finished])
        #expect(waiting.handle(.timer, at: .seconds(1)).isEmpty, "no attempt after a stop")
    }

    @Test("The state is published retained when it changes, not when told again unchanged, and again on each connection")
    func state() {
        var link = Fixture.link(discovery: false)
        let state = BrokerState(state: .guarding, sink: "speakers", source: .sink, devices: [])
        #expect(link.handle(.state(state), at: .zero).isEmpty, "not connected yet")
        link.connect()
        _ = link.handle(.lost(attempt: 1, reason: "reset"), at: .zero)
        _ = link.handle(.timer, at: .seconds(1))
        let actions = link.handle(.connected(attempt: 2), at: .seconds(1))
        #expect(actions.contains(.publish(attempt: 2, .init(message: nil, topic: topics.state, payload: state.payload, retain: true))))
        #expect(link.handle(.state(state), at: .seconds(1)).isEmpty, "unchanged")
        let paused = BrokerState(state: .paused, sink: "speakers", source: .sink, devices: [])
        #expect(link.handle(.state(paused), at: .seconds(1)).publishedTopics == [topics.state])
    }
}
