import Foundation
import GuardProtocol
import TestSupport
import Testing
import VolumeGuardClient

@Suite("The socket protocol", .serialized)
struct ProtocolTests {
    @Test("Every request is answered with its own reply type, echoing the request's id")
    func idEcho() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        let expected: [(Request.Command, String)] = [
            (.status, "status"), (.ping, "pong"), (.version, "version"), (.pause, "paused"), (.resume, "resumed"),
            (.subscribe, "subscribed"),
        ]
        try await daemon.client.withSession { session in
            for (number, (command, type)) in expected.enumerated() {
                for id in [RequestID.number(Int64(number) - 3), .text("\(command)-\(number) ✓")] {
                    try await session.send(Request(command, id: id))
                    let reply = try await nextReply(session)
                    #expect(reply.type == type, "\(command)")
                    #expect(reply.id == id, "\(command)")
                }
            }
            try await session.send(raw: Array(#"{"cmd":"reboot","id":"e-1"}"#.utf8) + [0x0A])
            let error = try await nextReply(session)
            #expect(error.type == "error")
            #expect(error.id == .text("e-1"))
        }
        guard case .ack(let version) = try await daemon.client.request(Request(.version)) else {
            Issue.record("no version reply")
            return
        }
        #expect(version.version == VolumeGuardVersion.current)
    }

    @Test("Each kind of bad line gets an error with its code, and the connection stays usable")
    func hostileLines() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        let bystander = try await Subscriber(to: daemon)
        let cases: [([UInt8], RequestError.Code)] = [
            ([], .emptyRequest),
            (Array("\r".utf8), .emptyRequest),
            ([0xC3, 0x28], .invalidUTF8),
            (Array(#"{"cmd":"ping","id":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8), .invalidUTF8),
            ([0x7B, 0x00, 0x7D], .invalidJSON),
            (Array("{\"cmd\":\"ping\"".utf8), .invalidJSON),
            (Array(String(repeating: "[", count: 20000).utf8), .invalidJSON),
            (Array("true".utf8), .notAnObject),
            (Array("\"ping\"".utf8), .notAnObject),
            (Array("[{\"cmd\":\"ping\"}]".utf8), .notAnObject),
            (Array("{\"id\":1}".utf8), .missingField),
            (Array("{\"cmd\":[\"ping\"]}".utf8), .invalidField),
            (Array("{\"cmd\":\"ping\",\"id\":{}}".utf8), .invalidField),
            (Array("{\"cmd\":\"subscribe\",\"since\":\"5\"}".utf8), .invalidField),
            (Array("{\"cmd\":\"subscribe\",\"since\":-1}".utf8), .invalidField),
            (Array("{\"cmd\":\"subscribe\",\"since\":1.5}".utf8), .invalidField),
            (Array("{\"cmd\":\"subscribe\",\"since\":1e30}".utf8), .invalidField),
            (Array("{\"cmd\":\"PING\"}".utf8), .unknownCommand),
        ]
        let socket = try RawSocket(connectingTo: daemon.socketPath)
        for (line, code) in cases {
            #expect(socket.send(line + [0x0A]))
            let reply = try #require(socket.readLine().flatMap { ServerMessage(line: Array($0.utf8)) }, "no reply to \(line)")
            guard case .error(let error) = reply else {
                Issue.record("\(String(decoding: line, as: UTF8.self)) was answered with \(reply)")
                continue
            }
            #expect(error.code == code, "for \(String(decoding: line, as: UTF8.self))")
            #expect(!error.message.isEmpty)
        }
        // A line just at the limit is a request like any other; the connection still serves.
        let padding = String(repeating: "x", count: WireFormat.maximumLineLength - #"{"cmd":"ping","pad":""}"#.utf8.count)
        #expect(socket.send(line: #"{"cmd":"ping","pad":"\#(padding)"}"#))
        #expect(socket.readLine() == #"{"type":"pong"}"#)

        try server.pactl("set-sink-volume", "guard_a", "+5%")
        _ = try await bystander.waitForPresses(1)
        #expect(!(await bystander.ended))
    }

    @Test("A line over 64 KiB, or 10 MiB without a newline, gets line-too-long and the connection is closed; no one else notices")
    func overlongLines() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        let bystander = try await Subscriber(to: daemon)
        let baseline = try daemon.anonymousKiB

        let overlong: [[UInt8]] = [
            Array(repeating: UInt8(ascii: " "), count: WireFormat.maximumLineLength + 1) + [0x0A],
            Array(repeating: UInt8(ascii: "x"), count: 10 * 1024 * 1024),
        ]
        for bytes in overlong {
            let socket = try RawSocket(connectingTo: daemon.socketPath)
            // The daemon stops reading and closes part way through: the rest cannot be sent.
            socket.send(bytes)
            let lines = try #require(socket.readToEnd(), "the connection was not closed")
            #expect(lines.count == 1)
            guard case .error(let error)? = lines.first.flatMap({ ServerMessage(line: Array($0.utf8)) }) else {
                Issue.record("no error line: \(lines)")
                continue
            }
            #expect(error.code == .lineTooLong)
        }
        // Memory stays bounded: 10 MiB came in, a line's worth at most was held.
        let resident = try daemon.anonymousKiB
        #expect(!Daemon.runsNatively || resident < baseline + 8 * 1024, "anonymous memory \(resident) KiB, was \(baseline) KiB")

        try server.pactl("set-sink-volume", "guard_a", "+5%")
        #expect(try await bystander.waitForPresses(1).count == 1)
        #expect(!(await bystander.ended))
        guard case .ack(let pong) = try await daemon.client.request(Request(.ping)) else {
            Issue.record("no pong")
            return
        }
        #expect(pong.type == "pong")
    }

    @Test("A last request without its newline is still answered when the client stops sending")
    func unterminatedLastLine() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        let socket = try RawSocket(connectingTo: daemon.socketPath)
        socket.send(Array(#"{"cmd":"ping","id":3}"#.utf8))
        socket.shutdownSending()
        #expect(socket.readToEnd() == [#"{"id":3,"type":"pong"}"#])
    }

    @Test("A client that sends many requests and stops sending gets every reply, in order, though it reads only later")
    func repliesOutliveTheRequests() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        let socket = try RawSocket(connectingTo: daemon.socketPath)
        // Far more replies than the socket holds, fewer than would cut the client loose: the rest wait in
        // the daemon, and must still be written after the requests ended.
        let count = 1000
        socket.send((1...count).flatMap { Array(#"{"cmd":"status","id":\#($0)}"#.utf8) + [0x0A] })
        socket.shutdownSending()
        try await Task.sleep(for: .milliseconds(500))
        let replies = try #require(socket.readToEnd(), "the connection did not end")
        let ids = replies.map { line -> RequestID? in
            if case .status(let status)? = ServerMessage(line: Array(line.utf8)) { status.id } else { nil }
        }
        let expected = (1...count).map { RequestID.number(Int64($0)) }
        #expect(replies.joined().utf8.count > 256 * 1024, "too few bytes to fill the socket")
        #expect(ids.count == count)
        #expect(zip(ids, expected).allSatisfy { $0 == $1 }, "a reply out of order, or not a status")
    }
}

/// The next line that answers a request (press and state lines are not answers).
private func nextReply(_ session: GuardSession) async throws -> (type: String, id: RequestID?) {
    while let message = try await session.next() {
        switch message {
        case .status(let status): return (status.type, status.id)
        case .subscribed(let subscribed): return (subscribed.type, subscribed.id)
        case .ack(let ack): return (ack.type, ack.id)
        case .error(let error): return (error.type, error.id)
        case .press, .release, .gesture, .state: continue
        }
    }
    throw TestFailure("the connection ended")
}
