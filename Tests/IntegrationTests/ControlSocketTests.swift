import GuardProtocol
import Testing

@Suite("The control socket", .serialized)
struct ControlSocketTests {
    @Test("Status reports the state, sink, levels, presses and subscribers")
    func status() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [30000, 20000])
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        _ = try await subscriber.waitForPresses(1)

        let status = try await daemon.status()
        #expect(status.state == .guarding)
        #expect(status.sink == "guard_a")
        #expect(status.held?.raw == [30000, 20000])
        #expect(status.original?.raw == [30000, 20000])
        #expect(status.muted == false)
        #expect(status.presses.up == 1)
        #expect(status.lastSeq == 1)
        #expect(status.subscribers == 1)
        #expect(status.server?.hasPrefix("pulseaudio") == true)
    }

    @Test("A malformed request gets an error line and the connection stays usable")
    func malformedRequests() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        let expected: [(String, RequestError.Code)] = [
            ("{bad", .invalidJSON),
            ("[1,2]", .notAnObject),
            ("{}", .missingField),
            (#"{"cmd":5}"#, .invalidField),
            (#"{"cmd":"dance"}"#, .unknownCommand),
            ("   ", .emptyRequest),
        ]
        try await daemon.client.withSession { session in
            for (line, code) in expected {
                try await session.send(raw: Array((line + "\n").utf8))
                guard case .error(let error)? = try await session.next() else {
                    Issue.record("no error reply to \(line)")
                    return
                }
                #expect(error.code == code, "for \(line)")
            }
            try await session.send(raw: [0xFF, 0xFE, 0x0A])
            let reply = try await session.next()
            guard case .error(let error)? = reply else {
                Issue.record("no error reply to invalid UTF-8: \(String(describing: reply))")
                return
            }
            #expect(error.code == .invalidUTF8)

            try await session.send(Request(.ping, id: .text("after")))
            let answer = try await session.next()
            guard case .ack(let pong)? = answer else {
                Issue.record("no pong: \(String(describing: answer))")
                return
            }
            #expect(pong.type == "pong")
            #expect(pong.id == .text("after"))
        }
    }
}
