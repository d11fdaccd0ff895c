import Foundation
import GuardProtocol
import TestSupport
import Testing

/// The HTTP listener against the real daemon: event streams as a browser's `EventSource` reads them,
/// status, pause and resume. Its refusals and limits are in `HTTPSafetyTests`.
@Suite("The HTTP listener", .serialized)
struct HTTPListenerTests {
    static let origin = "http://127.0.0.1:8000"
    static let listener = ["--http", "127.0.0.1:0", "--http-origins", origin]

    @Test("Each line the socket sends is one unnamed event whose data is that very line; presses carry their seq as id", arguments: AudioServer.Kind.underTest)
    func framing(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let daemon = try await Daemon(on: server, arguments: Self.listener)
        let port = try await daemon.httpPort()
        let socket = try RawSocket(connectingTo: daemon.socketPath)
        socket.send(line: #"{"cmd":"subscribe"}"#)
        let subscribedLine = try #require(socket.readLine())
        guard case .subscribed(let reply)? = ServerMessage(line: Array(subscribedLine.utf8)) else { throw TestFailure("no subscribed reply") }

        let stream = try EventStreamClient(port: port, headers: [("Origin", Self.origin)])
        #expect(stream.status == 200)
        #expect(stream.headers["content-type"]?.hasPrefix("text/event-stream") == true)
        #expect(stream.headers["access-control-allow-origin"] == Self.origin)
        #expect(stream.headers["cache-control"] == "no-store")
        let quiet = try EventStreamClient(port: port, "/events?states=false&gestures=false")
        for client in [stream, quiet] {
            let subscribed = try #require(client.next())
            #expect(subscribed.event == "message")
            #expect(subscribed.type == "subscribed")
            #expect(subscribed.retry == 1000)
            #expect(subscribed.id == "0")
            guard case .subscribed(let streamReply)? = subscribed.message else { throw TestFailure("not a subscribed reply: \(subscribed.data)") }
            #expect(streamReply.instance == reply.instance)
        }
        // Right after subscribed, a stream that wants states is told the current one (a socket client is not).
        let current = try #require(stream.next())
        #expect(current.event == "message" && current.id == nil)
        #expect(current.data == #"{"sink":"guard_a","state":"guarding","type":"state"}"#)
        #expect(try await daemon.status().http?.clients == 2)
        #expect(try await daemon.status().subscribers == 3)

        try server.pactl("set-sink-volume", "guard_a", "+5%")
        let pressLine = try #require(socket.readLine())
        for client in [stream, quiet] {
            let press = try #require(client.next())
            #expect(press.event == "message" && press.type == "press")
            #expect(press.data == pressLine)
            #expect(press.id == "1")
            #expect(press.press?.seq == 1)
        }

        let paused = try HTTPClient.request(port: port, "/pause", method: "POST", headers: [("Origin", Self.origin)])
        #expect(paused.status == 200)
        #expect(paused.body == #"{"type":"paused"}"# + "\n")
        #expect(paused.headers["access-control-allow-origin"] == Self.origin)
        let stateLine = try #require(socket.readLine())
        let state = try #require(stream.events { $0.type == "state" }?.last)
        #expect(state.event == "message")
        #expect(state.data == stateLine)
        #expect(state.id == nil)
        guard case .state(let message)? = state.message else { throw TestFailure("not a state line: \(state.data)") }
        #expect(message.state == .paused)
        #expect(try await daemon.status().state == .paused)

        let resumed = try HTTPClient.request(port: port, "/resume", method: "POST", headers: [("Origin", Self.origin)])
        #expect(resumed.body == #"{"type":"resumed"}"# + "\n")
        #expect(try await daemon.status().state == .guarding)
        try server.pactl("set-sink-volume", "guard_a", "-5%")
        // The stream without states has had nothing but presses.
        let next = try #require(quiet.next())
        #expect(next.type == "press" && next.press?.seq == 2 && next.press?.direction == .down)

        let status = try HTTPClient.request(port: port, "/status")
        #expect(status.status == 200)
        #expect(status.headers["content-type"] == "application/json")
        guard case .status(let reported)? = status.message else { throw TestFailure("not a status reply: \(status.body)") }
        #expect(reported.http?.address == "127.0.0.1:\(port)")
        #expect(reported.http?.clients == 2)
        #expect(reported.lastSeq == 2)
        #expect(
            try outcome(of: [Daemon.binary, "status", "--socket", daemon.socketPath]).output.contains(
                "http        127.0.0.1:\(port), event streams 2, connections "))

        // The comment that keeps a connection checked comes every 15 s, whatever the audio server.
        guard kind == AudioServer.Kind.underTest.first else { return }
        let deadline = ContinuousClock.now + .seconds(20)
        while !quiet.comments.contains(": keep-alive"), ContinuousClock.now < deadline {
            _ = quiet.next(timeout: .seconds(1))
        }
        #expect(quiet.comments.contains(": keep-alive"))
    }

    @Test("Last-Event-ID is since: the same replay, gap and restart rule, across a restart of the daemon too", arguments: AudioServer.Kind.underTest)
    func replay(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let port = try freePort()
        let arguments = ["--http", "127.0.0.1:\(port)", "--http-origins", Self.origin]
        let first = try await Daemon(on: server, arguments: arguments)
        let stream = try EventStreamClient(port: port)
        guard case .subscribed(let oneReply)? = stream.next()?.message else { throw TestFailure("not subscribed") }
        let one = oneReply.instance
        var presses: [ServerSentEvent] = []
        for step in ["+5%", "-5%", "+5%"] {
            try server.pactl("set-sink-volume", "guard_a", step)
            presses.append(try #require(stream.events { $0.type == "press" }?.last))
        }
        #expect(presses.map(\.id) == ["1", "2", "3"])

        // A reconnect in the same run gets exactly what it missed; the subscribed event's id is where it
        // resumed from.
        let resumed = try EventStreamClient(port: port, "/events?states=false", headers: [("Last-Event-ID", "1")])
        #expect(resumed.next()?.id == "1")
        #expect(resumed.next() == presses[1])
        #expect(resumed.next() == presses[2])

        // The daemon stops: the stream is told and ends.
        #expect(await first.stop() == 0)
        #expect(stream.events { $0.data.contains(#""state":"stopped""#) } != nil)
        #expect(stream.ends(within: .seconds(10)))

        // A new daemon that has counted 2 presses before the stream is back with its id 3, beyond the new
        // last_seq: only another run can have given it, so it is taken as 0 (the restart rule, which an
        // EventSource cannot apply itself), and the new run's presses are replayed from its first.
        let second = try await Daemon(on: server, arguments: arguments + ["--history", "2"])
        for (number, step) in ["+5%", "-5%"].enumerated() {
            try server.pactl("set-sink-volume", "guard_a", step)
            #expect(try await eventually { try await second.status().lastSeq == number + 1 })
        }
        let back = try EventStreamClient(port: port, "/events?states=false", headers: [("Last-Event-ID", "3")])
        let subscribed = try #require(back.next())
        guard case .subscribed(let reply)? = subscribed.message else { throw TestFailure("not subscribed: \(subscribed.data)") }
        #expect(reply.instance != one)
        #expect(reply.lastSeq == 2)
        #expect(reply.gap == nil)
        #expect(subscribed.id == "0")
        #expect(back.next()?.id == "1")
        #expect(back.next()?.id == "2")
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        let live = try #require(back.next())
        #expect(live.type == "press" && live.id == "3")

        // The page that compares instances starts again from since=0: the history keeps 2, so a gap.
        let late = try EventStreamClient(port: port, "/events?since=0&states=false")
        guard case .subscribed(let lateReply)? = late.next()?.message else { throw TestFailure("not subscribed") }
        #expect(lateReply.gap == true)
        #expect(late.next()?.id == "2")
        #expect(late.next()?.id == "3")
        // Last-Event-ID wins over the since the URL still carries: no gap from 1.
        let again = try EventStreamClient(port: port, "/events?since=0&states=false", headers: [("Last-Event-ID", "1")])
        guard case .subscribed(let againReply)? = again.next()?.message else { throw TestFailure("not subscribed") }
        #expect(againReply.gap == nil)
        #expect(again.next()?.id == "2")
        #expect(again.next()?.id == "3")
    }

    @Test("An event stream whose client closes is given up at once, not at the next heartbeat")
    func streamClosed() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server, arguments: Self.listener)
        let port = try await daemon.httpPort()
        var socket: RawSocket? = try RawSocket(tcpPort: port)
        #expect(socket?.send(Array(HTTPClient.requestHead(port: port, "/events").utf8)) == true)
        #expect(try HTTPClient.readHead(socket!).status == 200)
        #expect(try await eventually { try await daemon.status().subscribers == 1 })
        socket = nil
        // The heartbeat, which would find it gone by a failed write, comes every 15 s.
        #expect(try await eventually(within: .seconds(5)) { try await daemon.status().subscribers == 0 })
    }

    @Test("A client that half-closes after its request (nc -N, printf | socat) still gets the answer, kept alive or not")
    func halfClose() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server, arguments: Self.listener)
        let port = try await daemon.httpPort()
        for headers in [[], [("Connection", "close")]] {
            let socket = try RawSocket(tcpPort: port)
            #expect(socket.send(Array(HTTPClient.requestHead(port: port, "/status", headers: headers).utf8)))
            socket.shutdownSending()
            let reply = try HTTPClient.readReply(socket)
            #expect(reply.status == 200, "\(headers)")
            #expect(reply.message.map { if case .status = $0 { true } else { false } } == true, "\(reply.body)")
            #expect(socket.read(count: 1, timeout: .seconds(5)) == nil, "the connection ends after the answer")
        }
    }
}

/// A TCP port on loopback that nothing listens on now.
func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
    }
    guard bound else { throw TestFailure("no free port: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}
