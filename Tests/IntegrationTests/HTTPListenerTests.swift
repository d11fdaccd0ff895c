import Foundation
import GuardProtocol
import Testing

/// The HTTP listener against the real daemon: event streams as a browser's `EventSource` reads them,
/// status, pause and resume. Its refusals and limits are in `HTTPSafetyTests`.
@Suite("The HTTP listener", .serialized)
struct HTTPListenerTests {
    static let origin = "http://127.0.0.1:8000"
    static let listener = ["--http", "127.0.0.1:0", "--http-origins", origin]

    @Test("Each line the socket sends is one event whose data is that very line; presses carry their seq as id", arguments: AudioServer.Kind.underTest)
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
            #expect(subscribed.event == "subscribed")
            #expect(subscribed.retry == 1000)
            #expect(subscribed.id == "0@\(reply.instance)")
            guard case .subscribed(let streamReply)? = subscribed.message else { throw TestFailure("not a subscribed reply: \(subscribed.data)") }
            #expect(streamReply.instance == reply.instance)
        }
        #expect(try await daemon.status().http?.clients == 2)
        #expect(try await daemon.status().subscribers == 3)

        try server.pactl("set-sink-volume", "guard_a", "+5%")
        let pressLine = try #require(socket.readLine())
        for client in [stream, quiet] {
            let press = try #require(client.events { $0.event == "press" }?.last)
            #expect(press.data == pressLine)
            #expect(press.id == "1@\(reply.instance)")
            #expect(press.press?.seq == 1)
        }

        let paused = try HTTPClient.request(port: port, "/pause", method: "POST", headers: [("Origin", Self.origin)])
        #expect(paused.status == 200)
        #expect(paused.body == #"{"type":"paused"}"# + "\n")
        #expect(paused.headers["access-control-allow-origin"] == Self.origin)
        let stateLine = try #require(socket.readLine())
        let state = try #require(stream.events { $0.event == "state" }?.last)
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
        #expect(next.event == "press" && next.press?.seq == 2 && next.press?.direction == .down)

        let status = try HTTPClient.request(port: port, "/status")
        #expect(status.status == 200)
        #expect(status.headers["content-type"] == "application/json")
        guard case .status(let reported)? = status.message else { throw TestFailure("not a status reply: \(status.body)") }
        #expect(reported.http?.address == "127.0.0.1:\(port)")
        #expect(reported.http?.clients == 2)
        #expect(reported.lastSeq == 2)
        #expect(try outcome(of: [Daemon.binary, "status", "--socket", daemon.socketPath]).output.contains("http        127.0.0.1:\(port), event streams 2, connections "))

        // The comment that keeps a connection checked comes every 15 s.
        _ = quiet.next(timeout: .seconds(20))
        #expect(quiet.comments.contains(": keep-alive"))
    }

    @Test("Last-Event-ID replays what a stream missed, across a restart of the daemon too, with since's gap rule", arguments: AudioServer.Kind.underTest)
    func replay(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let port = try freePort()
        let arguments = ["--http", "127.0.0.1:\(port)", "--http-origins", Self.origin]
        let first = try await Daemon(on: server, arguments: arguments)
        let stream = try EventStreamClient(port: port)
        let one = try #require(stream.next()?.id?.split(separator: "@").last.map(String.init))
        var presses: [ServerSentEvent] = []
        for step in ["+5%", "-5%", "+5%"] {
            try server.pactl("set-sink-volume", "guard_a", step)
            presses.append(try #require(stream.events { $0.event == "press" }?.last))
        }
        #expect(presses.map(\.id) == ["1@\(one)", "2@\(one)", "3@\(one)"])

        // A reconnect in the same run gets exactly what it missed.
        let resumed = try EventStreamClient(port: port, headers: [("Last-Event-ID", "1@\(one)")])
        #expect(resumed.next()?.id == "1@\(one)")
        #expect(resumed.next() == presses[1])
        #expect(resumed.next() == presses[2])

        // The daemon stops: the stream is told and ends.
        #expect(await first.stop() == 0)
        #expect(stream.events { $0.data.contains(#""state":"stopped""#) } != nil)
        #expect(stream.ends(within: .seconds(10)))

        // A new daemon, and presses before the stream is back: its last id names the old run, so it is
        // owed every press of the new one.
        let second = try await Daemon(on: server, arguments: arguments + ["--history", "2"])
        for (number, step) in ["+5%", "-5%"].enumerated() {
            try server.pactl("set-sink-volume", "guard_a", step)
            #expect(try await eventually { try await second.status().lastSeq == number + 1 })
        }
        let back = try EventStreamClient(port: port, headers: [("Last-Event-ID", "3@\(one)")])
        let subscribed = try #require(back.next())
        guard case .subscribed(let reply)? = subscribed.message else { throw TestFailure("not subscribed: \(subscribed.data)") }
        let two = reply.instance
        #expect(two != one)
        #expect(reply.gap == nil)
        #expect(subscribed.id == "0@\(two)")
        #expect(back.next()?.id == "1@\(two)")
        #expect(back.next()?.id == "2@\(two)")
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        #expect(back.events { $0.event == "press" }?.last?.id == "3@\(two)")

        // The history keeps 2: a stream that has nothing of this run has a gap.
        let late = try EventStreamClient(port: port, headers: [("Last-Event-ID", "0@\(two)")])
        guard case .subscribed(let lateReply)? = late.next()?.message else { throw TestFailure("not subscribed") }
        #expect(lateReply.gap == true)
        #expect(late.next()?.id == "2@\(two)")
        #expect(late.next()?.id == "3@\(two)")
        // A bare seq, or since in the URL, counts in this run, as the socket's since does.
        let bare = try EventStreamClient(port: port, "/events?since=2")
        #expect(bare.next()?.id == "2@\(two)")
        #expect(bare.next()?.id == "3@\(two)")
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
