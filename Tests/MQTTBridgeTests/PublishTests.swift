import Foundation
import MQTTBridge
import TestSupport
import Testing

/// Publishing, subscribing and the will, against a real broker and its own clients.
@Suite struct PublishTests {
    @Test func aQoS1PublishIsAcknowledgedAndReachesASubscriber() async throws {
        let broker = try Broker()
        let subscriber = try await broker.subscriber(to: "guard/press")
        let recorder = Recorder()
        try await recorder.connect(.init(host: "127.0.0.1", port: broker.port))
        let ticket = try recorder.connection.publish(topic: "guard/press", payload: Array(#"{"seq":1}"#.utf8), retain: false)
        try await recorder.waitFor("the PUBACK") { $0 == .acknowledged(ticket: ticket) }
        #expect(subscriber.wait() == 0)
        #expect(subscriber.output == #"guard/press {"seq":1}"# + "\n")
    }

    /// select(2), which `mosquitto_loop` waits in, cannot take a descriptor of 1024 or more; a daemon that
    /// raised its open-file limit for many clients may be given one.
    @Test func aSocketNumberedPast1024StillPublishes() async throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        try #require(limit.rlim_max >= 1200, "the hard limit of open files is \(limit.rlim_max)")
        if limit.rlim_cur < 1200 {
            limit.rlim_cur = limit.rlim_max
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        // The broker first: no program started while they are held (mosquitto_pub, which the broker's start
        // asks, waits in select(2) too).
        let broker = try Broker()
        let held = (0..<1100).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
        defer { for descriptor in held where descriptor >= 0 { close(descriptor) } }
        try #require(held.allSatisfy { $0 >= 0 })
        let recorder = Recorder()
        try await recorder.connect(.init(host: "127.0.0.1", port: broker.port))
        let ticket = try recorder.connection.publish(topic: "guard/press", payload: Array("{}".utf8), retain: false)
        try await recorder.waitFor("the PUBACK") { $0 == .acknowledged(ticket: ticket) }
    }

    @Test func aCloseWithoutDisconnectLeavesTheWillToTheBroker() async throws {
        let broker = try Broker()
        let subscriber = try await broker.subscriber(to: "guard/availability")
        let recorder = Recorder()
        let will = BrokerConnection.Will(topic: "guard/availability", payload: Array("offline".utf8), retain: false)
        try await recorder.connect(.init(host: "127.0.0.1", port: broker.port, will: will))
        recorder.connection.close()
        try await recorder.waitFor(".closed") { $0 == .closed }
        #expect(subscriber.wait() == 0)
        #expect(subscriber.output == "guard/availability offline\n")
    }

    @Test func aDisconnectSendsNoWill() async throws {
        let broker = try Broker()
        let subscriber = try await broker.subscriber(to: "guard/availability")
        let recorder = Recorder()
        let will = BrokerConnection.Will(topic: "guard/availability", payload: Array("offline".utf8), retain: false)
        try await recorder.connect(.init(host: "127.0.0.1", port: broker.port, will: will))
        recorder.connection.disconnect()
        try await recorder.waitFor(".closed") { $0 == .closed }
        // The broker has handled the DISCONNECT (a will would have gone out by now): the next message is ours.
        try await broker.waitForLog("disconnected.")
        try broker.publish("marker", on: "guard/availability")
        #expect(subscriber.wait() == 0)
        #expect(subscriber.output == "guard/availability marker\n")
        #expect(recorder.all == [.connected, .closed])
    }

    @Test func aSubscriptionReceivesAnotherClientsMessage() async throws {
        let broker = try Broker()
        let recorder = Recorder()
        try await recorder.connect(.init(host: "127.0.0.1", port: broker.port))
        try recorder.connection.subscribe(["guard/command"])
        try await broker.waitForLog(" 1 guard/command")
        try broker.publish("pause", on: "guard/command")
        try await recorder.waitFor("the message") { $0 == .received(topic: "guard/command", payload: Array("pause".utf8)) }
    }

    @Test func aPublishBeforeConnectingIsRefused() throws {
        let recorder = Recorder()
        #expect(throws: BrokerConnectionError.self) {
            try recorder.connection.publish(topic: "guard/press", payload: [], retain: false)
        }
    }
}
