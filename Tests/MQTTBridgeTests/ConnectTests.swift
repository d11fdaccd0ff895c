import Foundation
import MQTTBridge
import Synchronization
import TestSupport
import Testing

/// How a connection comes about, or why not, and how it ends, against a real broker.
@Suite struct ConnectTests {
    @Test func aWrongPasswordIsRefusedWithTheBrokersReason() async throws {
        let broker = try Broker(["--password", "guard:right"])
        let recorder = Recorder()
        recorder.connection.connect(.init(host: "127.0.0.1", port: broker.port, username: "guard", password: "wrong"))
        try await recorder.waitFor(".closed") { $0 == .closed }
        #expect(recorder.all == [.refused(code: 5, reason: "Connection Refused: not authorised."), .closed])
    }

    @Test func theRightPasswordConnects() async throws {
        let broker = try Broker(["--password", "guard:right"])
        let recorder = Recorder()
        try await recorder.connect(.init(host: "127.0.0.1", port: broker.port, username: "guard", password: "right"))
    }

    @Test func tlsWithTheBrokersCAConnects() async throws {
        let broker = try Broker(["--tls"])
        let recorder = Recorder()
        let ca: String = try #require(broker.ca)
        let tls = BrokerConnection.TLS(caFile: ca)
        try await recorder.connect(.init(host: "127.0.0.1", port: try #require(broker.tlsPort), tls: tls))
    }

    @Test func tlsWithTheSystemsCAsFailsWithOpenSSLsReason() async throws {
        let broker = try Broker(["--tls"])
        let recorder = Recorder()
        recorder.connection.connect(.init(host: "127.0.0.1", port: try #require(broker.tlsPort), tls: .init()))
        let failed = try await recorder.waitFor(".failed") { if case .failed = $0 { true } else { false } }
        #expect(failed == .failed(reason: "certificate verify failed", tls: true))
    }

    @Test func nothingListeningFails() async throws {
        let broker = try Broker()
        try broker.stop()
        let recorder = Recorder()
        recorder.connection.connect(.init(host: "127.0.0.1", port: broker.port))
        let failed = try await recorder.waitFor(".failed") { if case .failed = $0 { true } else { false } }
        #expect(failed == .failed(reason: "Connection refused", tls: false))
        try await recorder.waitFor(".closed") { $0 == .closed }
    }

    @Test func aListenerThatNeverAnswersFailsAtTheDeadline() async throws {
        let broker = try Broker()
        let port = try broker.silentListener()
        let recorder = Recorder()
        recorder.connection.connect(.init(host: "127.0.0.1", port: port, deadline: .seconds(2)))
        let failed = try await recorder.waitFor(".failed") { if case .failed = $0 { true } else { false } }
        #expect(failed == .failed(reason: "no answer in 2 s", tls: false))
        try await recorder.waitFor(".closed") { $0 == .closed }
    }

    @Test func aTLSHandshakeThatNeverAnswersFailsAtTheDeadline() async throws {
        let broker = try Broker()
        let port = try broker.silentListener()
        let recorder = Recorder()
        recorder.connection.connect(.init(host: "127.0.0.1", port: port, tls: .init(), deadline: .seconds(2)))
        let failed = try await recorder.waitFor(".failed") { if case .failed = $0 { true } else { false } }
        #expect(failed == .failed(reason: "no answer in 2 s", tls: false))
        try await recorder.waitFor(".closed") { $0 == .closed }
    }

    @Test func aBrokerThatStopsLosesTheConnection() async throws {
        let broker = try Broker()
        let recorder = Recorder()
        try await recorder.connect(.init(host: "127.0.0.1", port: broker.port))
        try broker.stop()
        try await recorder.waitFor(".closed") { $0 == .closed }
        #expect(recorder.all == [.connected, .lost(reason: "The connection was lost."), .closed])
    }

    @Test func aCloseFromInsideTheHandlerEndsTheConnection() async throws {
        let broker = try Broker()
        let recorder = Recorder { event, connection in
            if event == .connected { connection.close() }
        }
        recorder.connection.connect(.init(host: "127.0.0.1", port: broker.port))
        try await recorder.waitFor(".closed") { $0 == .closed }
        #expect(recorder.all == [.connected, .closed])
    }

    @Test func aCloseBeforeConnectingTellsClosedOnce() {
        let recorder = Recorder()
        recorder.connection.close()
        recorder.connection.close()
        #expect(recorder.all == [.closed])
    }
}

@Test func aRequestsDescriptionNamesTheBrokerAndUserButNeverThePassword() {
    let request = BrokerConnection.ConnectRequest(host: "broker.lan", port: 8883, username: "guard", password: "s3cret", tls: .init())
    var dumped = ""
    dump(request, to: &dumped)
    #expect(String(describing: request) == "mqtts://guard@broker.lan:8883")
    #expect(!dumped.contains("s3cret"))
    #expect(!String(reflecting: request).contains("s3cret"))
}
