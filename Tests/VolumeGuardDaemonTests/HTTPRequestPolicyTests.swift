import GuardProtocol
import GuardSettings
import NIOCore
import NIOHTTP1
import Testing

@testable import VolumeGuardDaemon

@Suite("What the HTTP listener serves and refuses")
struct HTTPRequestPolicyTests {
    static let booth = WebOrigin("http://127.0.0.1:8000")!
    let policy = HTTPRequestPolicy(origins: [Self.booth])
    let hosts = ListenerHosts(address: ListenAddress(host: "127.0.0.1", port: 8370))

    func decide(_ target: String, method: HTTPMethod = .GET, host: String? = "127.0.0.1:8370", _ headers: [(String, String)] = []) -> HTTPRequestPolicy.Decision
    {
        var all = HTTPHeaders(headers)
        if let host { all.add(name: "Host", value: host) }
        return policy.decide(HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: all), hosts: hosts)
    }

    func code(_ decision: HTTPRequestPolicy.Decision) -> (UInt, RequestError.Code)? {
        guard case .refuse(let refusal) = decision else { return nil }
        return (refusal.status.code, refusal.error.code)
    }

    @Test("The routes, with and without an allowed origin")
    func routes() {
        #expect(decide("/status") == .serve(.status, origin: nil))
        #expect(decide("/status", [("Origin", "http://127.0.0.1:8000")]) == .serve(.status, origin: Self.booth))
        #expect(decide("/pause", method: .POST, [("Origin", "http://127.0.0.1:8000")]) == .serve(.pause, origin: Self.booth))
        #expect(decide("/resume", method: .POST, [("Origin", "http://127.0.0.1:8000")]) == .serve(.resume, origin: Self.booth))
        #expect(decide("/events") == .serve(.events(since: nil, interests: .init()), origin: nil))
    }

    @Test("Host must name the listener: its address, or localhost on loopback")
    func host() {
        #expect(decide("/status", host: "localhost:8370") == .serve(.status, origin: nil))
        #expect(decide("/status", host: "LOCALHOST:8370") == .serve(.status, origin: nil))
        for wrong: String? in [nil, "evil.example:8370", "127.0.0.1", "127.0.0.1:8371", "localhost", "127.0.0.2:8370"] {
            #expect(code(decide("/status", host: wrong))! == (403, .forbiddenHost), "\(wrong ?? "none")")
            #expect(code(decide("/pause", method: .POST, host: wrong, [("Origin", "http://127.0.0.1:8000")]))! == (403, .forbiddenHost))
        }
        #expect(code(decide("/status", [("Host", "127.0.0.1:8370")]))! == (403, .forbiddenHost), "two Host headers")
        let wildcard = ListenerHosts(address: ListenAddress(host: "192.168.1.5", port: 80))
        #expect(wildcard.named(by: "192.168.1.5") && wildcard.named(by: "192.168.1.5:80") && !wildcard.named(by: "localhost:80"))
    }

    @Test("A foreign origin is refused on every path; a POST without an origin too")
    func origin() {
        for origin in ["http://evil.example", "http://127.0.0.1:8001", "null", "https://127.0.0.1:8000"] {
            #expect(code(decide("/events", [("Origin", origin)]))! == (403, .forbiddenOrigin), "\(origin)")
            #expect(code(decide("/pause", method: .POST, [("Origin", origin)]))! == (403, .forbiddenOrigin), "\(origin)")
            #expect(code(decide("/pause", method: .OPTIONS, [("Origin", origin), ("Access-Control-Request-Method", "POST")]))! == (403, .forbiddenOrigin))
        }
        #expect(code(decide("/pause", method: .POST))! == (403, .forbiddenOrigin))
        #expect(code(decide("/resume", method: .POST))! == (403, .forbiddenOrigin))
    }

    @Test("A preflight from an allowed origin is answered with the path's methods")
    func preflight() {
        let asked = [("Origin", "http://127.0.0.1:8000"), ("Access-Control-Request-Method", "POST")]
        #expect(decide("/pause", method: .OPTIONS, asked) == .preflight(origin: Self.booth, methods: [.POST], privateNetwork: false))
        #expect(
            decide("/events", method: .OPTIONS, asked + [("Access-Control-Request-Private-Network", "true")])
                == .preflight(origin: Self.booth, methods: [.GET], privateNetwork: true))
        #expect(decide("/status", method: .OPTIONS) == .options(methods: [.GET]))
    }

    @Test("Unknown paths are 404, wrong methods 405 with what the path takes")
    func pathsAndMethods() {
        #expect(code(decide("/index.html"))! == (404, .notFound))
        #expect(code(decide("/events/x"))! == (404, .notFound))
        #expect(code(decide("http://127.0.0.1:8370/status"))! == (404, .notFound))
        guard case .refuse(let refusal) = decide("/pause") else {
            Issue.record("GET /pause served")
            return
        }
        #expect(refusal.status == .methodNotAllowed && refusal.allow == [.POST])
        #expect(code(decide("/events", method: .POST, [("Origin", "http://127.0.0.1:8000")]))! == (405, .methodNotAllowed))
        #expect(code(decide("/status", method: .DELETE))! == (405, .methodNotAllowed))
    }

    @Test("Oversized targets and declared bodies are refused from the head")
    func limits() {
        #expect(code(decide("/status?" + String(repeating: "a", count: HTTPRequestPolicy.targetLimit)))! == (431, .headersTooLarge))
        let big = [("Origin", "http://127.0.0.1:8000"), ("Content-Length", "\(HTTPRequestPolicy.bodyLimit + 1)")]
        #expect(code(decide("/pause", method: .POST, big))! == (413, .bodyTooLarge))
        #expect(decide("/pause", method: .POST, [("Origin", "http://127.0.0.1:8000"), ("Content-Length", "2")]) == .serve(.pause, origin: Self.booth))
    }

    @Test("/events takes since, gestures and states as subscribe does; Last-Event-ID is a since, and wins")
    func events() {
        #expect(
            decide("/events?since=4&gestures=false&states=0&other=x")
                == .serve(.events(since: 4, interests: .init(gestures: false, states: false)), origin: nil))
        #expect(decide("/events?since=4", [("Last-Event-ID", "7")]) == .serve(.events(since: 7, interests: .init()), origin: nil))
        #expect(
            decide("/events", [("Last-Event-ID", "18446744073709551615")])
                == .serve(.events(since: .max, interests: .init()), origin: nil))
        #expect(decide("/events", [("Last-Event-ID", "")]) == .serve(.events(since: nil, interests: .init()), origin: nil))
        for wrong in ["/events?since=-1", "/events?since=x", "/events?since=", "/events?since=+5", "/events?gestures=no", "/events?states="] {
            #expect(code(decide(wrong))! == (400, .invalidField), "\(wrong)")
        }
        for wrong in ["7@3f0c9d2e", "x", "-1", "+7", "٥", "1.5", "18446744073709551616"] {
            #expect(code(decide("/events", [("Last-Event-ID", wrong)]))! == (400, .invalidField), "\(wrong)")
        }
    }
}
