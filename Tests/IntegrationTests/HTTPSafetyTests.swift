import Foundation
import GuardProtocol
import TestSupport
import Testing
import VolumeGuardDaemon

/// What the HTTP listener refuses and how it stays bounded: a TCP port is open to every local user and
/// every web page, so hostile requests change nothing and no client can hold up another.
@Suite("The HTTP listener, safe by default", .serialized)
struct HTTPSafetyTests {
    static let origin = HTTPListenerTests.origin

    @Test("A wrong or missing Host, a foreign Origin, a POST without an allowed one: 403, and nothing changes", arguments: AudioServer.Kind.underTest)
    func refusals(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let daemon = try await Daemon(on: server, arguments: HTTPListenerTests.listener)
        let port = try await daemon.httpPort()
        let allowed = [("Origin", Self.origin)]

        for host in ["evil.example:\(port)", "127.0.0.1", "127.0.0.1:\(port + 1)", ""] {
            for (method, target) in [("GET", "/status"), ("GET", "/events"), ("POST", "/pause")] {
                let reply = try HTTPClient.request(port: port, target, method: method, host: host, headers: allowed)
                #expect(reply.status == 403 && reply.errorCode == .forbiddenHost, "\(method) \(target) with Host \(host): \(reply.status) \(reply.body)")
                #expect(reply.headers["access-control-allow-origin"] == nil)
            }
        }
        for origin in ["http://evil.example", "http://127.0.0.1:8001", "null"] {
            for (method, target) in [("GET", "/status"), ("GET", "/events"), ("POST", "/pause"), ("OPTIONS", "/pause")] {
                let reply = try HTTPClient.request(
                    port: port, target, method: method, headers: [("Origin", origin), ("Access-Control-Request-Method", "POST")])
                #expect(reply.status == 403 && reply.errorCode == .forbiddenOrigin, "\(method) \(target) from \(origin): \(reply.status)")
                #expect(reply.headers["access-control-allow-origin"] == nil)
            }
        }
        for target in ["/pause", "/resume"] {
            let reply = try HTTPClient.request(port: port, target, method: "POST")
            #expect(reply.status == 403 && reply.errorCode == .forbiddenOrigin)
        }
        #expect(try await daemon.status().state == .guarding)
        #expect(!daemon.log.contains("state=paused"))

        let localhost = try HTTPClient.request(port: port, "/status", host: "localhost:\(port)")
        #expect(localhost.status == 200)
        #expect(localhost.headers["access-control-allow-origin"] == nil)
        let missing = try HTTPClient.request(port: port, "/photos")
        #expect(missing.status == 404 && missing.errorCode == .notFound)
        let wrongMethod = try HTTPClient.request(port: port, "/pause", method: "GET")
        #expect(wrongMethod.status == 405 && wrongMethod.errorCode == .methodNotAllowed && wrongMethod.headers["allow"] == "POST")
        let badSince = try HTTPClient.request(port: port, "/events?since=-1")
        #expect(badSince.status == 400 && badSince.errorCode == .invalidField)
    }

    @Test("The preflight of a POST from an allowed origin is answered, with CORS headers for that origin only")
    func preflight() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server, arguments: HTTPListenerTests.listener)
        let port = try await daemon.httpPort()
        let reply = try HTTPClient.request(
            port: port, "/pause", method: "OPTIONS",
            headers: [
                ("Origin", Self.origin), ("Access-Control-Request-Method", "POST"), ("Access-Control-Request-Headers", "content-type"),
            ])
        #expect(reply.status == 204)
        #expect(reply.headers["access-control-allow-origin"] == Self.origin)
        #expect(reply.headers["access-control-allow-methods"] == "POST")
        #expect(reply.headers["access-control-allow-headers"]?.lowercased().contains("content-type") == true)
        #expect(reply.headers["vary"] == "Origin")
        #expect(try await daemon.status().state == .guarding)
    }

    @Test("Oversized heads and bodies, garbage, and a head that trickles in are refused or cut off")
    func limits() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server, arguments: HTTPListenerTests.listener)
        let port = try await daemon.httpPort()
        let big = try HTTPClient.request(port: port, "/status", headers: [("X-Filler", String(repeating: "a", count: 20_000))])
        #expect(big.status == 431 && big.errorCode == .headersTooLarge)
        let many = try HTTPClient.request(port: port, "/status", headers: (0..<200).map { ("X-Filler-\($0)", "a") })
        #expect(many.status == 431 && many.errorCode == .headersTooLarge)
        let longTarget = try HTTPClient.request(port: port, "/status?" + String(repeating: "a", count: 9000))
        #expect(longTarget.status == 431 && longTarget.errorCode == .headersTooLarge)
        let body = try HTTPClient.request(port: port, "/pause", method: "POST", headers: [("Origin", Self.origin)], body: String(repeating: "b", count: 5000))
        #expect(body.status == 413 && body.errorCode == .bodyTooLarge)
        let huge = try HTTPClient.request(
            port: port, "/pause", method: "POST", headers: [("Origin", Self.origin)], body: String(repeating: "b", count: 1_000_000))
        #expect(huge.status == 413 && huge.errorCode == .bodyTooLarge, "the answer to a megabyte's body was lost")
        let chunked = try RawSocket(tcpPort: port)
        chunked.send(
            Array(HTTPClient.requestHead(port: port, "/pause", method: "POST", headers: [("Origin", Self.origin), ("Transfer-Encoding", "chunked")]).utf8))
        for _ in 0..<5 { chunked.send(Array("400\r\n\(String(repeating: "c", count: 1024))\r\n".utf8)) }
        let refused = try HTTPClient.readReply(chunked)
        #expect(refused.status == 413 && refused.errorCode == .bodyTooLarge)
        let garbage = try RawSocket(tcpPort: port)
        garbage.send(Array("HELLO THERE\r\n\r\n".utf8))
        let bad = try HTTPClient.readReply(garbage)
        #expect(bad.status == 400 && bad.errorCode == .badRequest)
        #expect(try await daemon.status().state == .guarding)

        // Slowloris: a head that never ends, a byte a second, and a connection that sends nothing, are
        // closed at the request deadline (10 s); meanwhile the listener serves others.
        let trickle = try RawSocket(tcpPort: port)
        let silent = try RawSocket(tcpPort: port)
        let started = ContinuousClock.now
        var closed = false
        for byte in Array(HTTPClient.requestHead(port: port, "/status").utf8.dropLast(2)) + Array(repeating: UInt8(ascii: "x"), count: 60) {
            guard trickle.send([byte]) else {
                closed = true
                break
            }
            if trickle.readLine(timeout: .milliseconds(200)) == nil, trickle.ended {
                closed = true
                break
            }
            if ContinuousClock.now - started > .seconds(40) { break }
        }
        #expect(closed, "a trickling head was never cut off")
        #expect(silent.readToEnd(timeout: .seconds(30)) != nil, "a silent connection was never closed")
        #expect(try HTTPClient.request(port: port, "/status").status == 200)
    }

    @Test("Beyond its connections the listener answers 503; an open stream still gets every press")
    func flood() async throws {
        let hard = try #require(OpenFileLimit.raiseToHard())
        try #require(hard > 2200, "this process needs descriptors for the flood")
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server, arguments: HTTPListenerTests.listener)
        let port = try await daemon.httpPort()
        let stream = try EventStreamClient(port: port)
        #expect(stream.next()?.type == "subscribed")
        var flood: [RawSocket] = []
        for _ in 1..<2048 { flood.append(try RawSocket(tcpPort: port)) }
        #expect(try await eventually { try await daemon.status().http?.connections == 2048 })
        let turnedAway = try HTTPClient.request(port: port, "/status")
        #expect(turnedAway.status == 503 && turnedAway.errorCode == .tooManyClients)
        try server.pactl("set-sink-volume", "guard_a", "-5%")
        #expect(stream.events { $0.type == "press" }?.last?.press?.seq == 1)
        flood = []
        #expect(try await eventually { try await daemon.status().http?.connections == 1 })
        #expect(try HTTPClient.request(port: port, "/status").status == 200)
    }

    @Test("A thousand open streams each receive every press, with the daemon started under a low open-file limit")
    func thousandStreams() async throws {
        let hard = try #require(OpenFileLimit.raiseToHard(), "this process needs descriptors for its thousand streams")
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(
            socketPath: server.runtimeDirectory + "/volume-guard.sock", environment: server.environment,
            arguments: HTTPListenerTests.listener, launcher: ["/usr/bin/prlimit", "--nofile=256:\(hard)", "--"]
        )
        let port = try await daemon.httpPort()
        var streams: [EventStreamClient] = []
        for _ in 0..<1000 { streams.append(try EventStreamClient(port: port)) }
        for stream in streams { #expect(stream.next()?.type == "subscribed") }
        #expect(try await daemon.status().http?.clients == 1000)
        for (number, step) in ["+5%", "-5%", "-5%"].enumerated() {
            try server.pactl("set-sink-volume", "guard_a", step)
            for stream in streams {
                #expect(stream.events { $0.type == "press" }?.last?.press?.seq == UInt64(number + 1))
            }
        }
    }

    @Test("A stream that never reads is cut loose while another receives every press", arguments: AudioServer.Kind.underTest)
    func neverReader(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        // A short history, so that the stalled stream's queue (a replay's worth and 256 more) fills soon.
        let daemon = try await Daemon(on: server, arguments: HTTPListenerTests.listener + ["--step", "5", "--history", "64"])
        let port = try await daemon.httpPort()
        let keys = try await KeyPresser(on: server, sink: "guard_a")
        let reader = try EventStreamClient(port: port, "/events?states=false")
        #expect(reader.next()?.type == "subscribed")
        let stalled = try EventStreamClient.neverReading(port: port)
        #expect(try await eventually { try await daemon.status().http?.clients == 2 })

        // Presses 50 at a time, each batch read whole by the reader, until the stalled stream is cut loose
        // (once its socket's buffers, a replay's worth and the queue's headroom wait: a few hundred with
        // this history), and at most 3,000.
        var total = 0
        var seqs: [UInt64] = []
        while true {
            for _ in 0..<50 { try await keys.pressUp(by: 3277) }
            total += 50
            while seqs.count < total, let event = reader.next(timeout: .seconds(30)) {
                if let press = event.press { seqs.append(press.seq) }
            }
            guard total < 3000, try await daemon.status().http?.clients == 2 else { break }
        }
        #expect(seqs == Array(1...UInt64(total)))
        #expect(try await daemon.status().http?.clients == 1)
        #expect(daemon.log.contains("subscriber cut loose"))
        #expect(stalled.readToEnd(timeout: .seconds(30)) != nil, "the stalled stream was not closed")
    }

    @Test("Nothing listens on TCP unless configured; a bare port is loopback; a wider address needs tokens, and says so while none is paired")
    func loopbackByDefault() async throws {
        let server = try AudioServer(.pulseaudio)
        let plain = try await Daemon(on: server)
        #expect(try await plain.status().http == nil)
        #expect(try listeningTCP(pid: plain.pid).isEmpty)
        #expect(await plain.stop() == 0)

        let barePort = try await Daemon(on: server, arguments: ["--http", "0"])
        let address = try #require(try await barePort.status().http?.address)
        #expect(address.hasPrefix("127.0.0.1:"))
        #expect(try listeningTCP(pid: barePort.pid) == [address])
        #expect(!barePort.log.contains("needs a paired client's token"))
        #expect(await barePort.stop() == 0)

        let wide = try await Daemon(on: server, arguments: ["--http", "0.0.0.0:0"])
        #expect(wide.log.contains("tokens=required"))
        #expect(wide.log.contains("the HTTP listener needs a paired client's token and no client is paired yet"))
    }
}

/// The TCP addresses process `pid` listens on, as `ss` reports them.
private func listeningTCP(pid: pid_t) throws -> [String] {
    let (status, output) = try command(["ss", "-H", "-l", "-t", "-n", "-p"])
    guard status == 0 else { throw TestFailure("ss failed") }
    return output.split(separator: "\n").filter { $0.contains("pid=\(pid),") }.compactMap { line in
        line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.map(String.init)
    }
}
