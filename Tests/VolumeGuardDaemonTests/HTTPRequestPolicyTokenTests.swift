import GuardProtocol
import GuardSettings
import NIOHTTP1
import Pairing
import Testing

@testable import VolumeGuardDaemon

@Suite("Paired clients' tokens and roles at the HTTP listener")
struct HTTPRequestPolicyTokenTests {
    static let lan = ListenAddress(host: "192.168.1.5", port: 8370)
    let hosts = ListenerHosts(address: Self.lan)
    let lanPolicy = HTTPRequestPolicy(origins: [], tokensRequired: HTTPSettings(address: Self.lan).tokensRequired)
    let loopbackPolicy = HTTPRequestPolicy(origins: [WebOrigin("http://127.0.0.1:8000")!])
    let tokens = (watch: Token("watchwatchwatch")!, trigger: Token("triggertrigger")!, operate: Token("operateoperate")!)
    var pairings: Pairings {
        Pairings([
            PairedClient(name: "screen", role: .watch, tokenHash: tokens.watch.hash, paired: ""),
            PairedClient(name: "tablet", role: .trigger, tokenHash: tokens.trigger.hash, paired: ""),
            PairedClient(name: "phone", role: .operate, tokenHash: tokens.operate.hash, paired: ""),
        ])
    }

    func decide(
        _ target: String, method: HTTPMethod = .GET, policy: HTTPRequestPolicy? = nil, host: String = "192.168.1.5:8370",
        _ headers: [(String, String)] = []
    ) -> HTTPRequestPolicy.Decision {
        let head = HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: HTTPHeaders([("Host", host)] + headers))
        let hosts = host.hasPrefix("127.") ? ListenerHosts(address: ListenAddress(host: "127.0.0.1", port: 8370)) : hosts
        return (policy ?? lanPolicy).decide(head, hosts: hosts, pairings: pairings)
    }

    func code(_ decision: HTTPRequestPolicy.Decision) -> (UInt, RequestError.Code)? {
        guard case .refuse(let refusal) = decision else { return nil }
        return (refusal.status.code, refusal.error.code)
    }

    func bearer(_ token: Token) -> [(String, String)] { [("Authorization", "Bearer \(token.text)")] }

    func client(_ decision: HTTPRequestPolicy.Decision) -> String? {
        if case .serve(_, _, let client?) = decision { client.name } else { nil }
    }

    @Test("Off loopback every path needs a token; a wrong one is told apart from none")
    func everyRequestNeedsAToken() {
        for path in ["/", "/events", "/status", "/client"] {
            #expect(code(decide(path))! == (401, .tokenRequired), "\(path)")
            #expect(code(decide(path + "?token=nottherightone"))! == (401, .badToken), "\(path)")
            #expect(code(decide(path, [("Authorization", "Bearer nottherightone")]))! == (401, .badToken), "\(path)")
        }
        #expect(code(decide("/press?key=up", method: .POST))! == (401, .tokenRequired))
        #expect(code(decide("/pause", method: .POST))! == (401, .tokenRequired))
        #expect(code(decide("/status", [("Authorization", "Basic dXNlcjpwYXNz")]))! == (400, .invalidField))
        #expect(code(decide("/status?token=" + String(repeating: "a", count: 100)))! == (401, .badToken), "too long for a token")
    }

    @Test("A token in the header or the query names its client")
    func tokenNamesTheClient() {
        #expect(client(decide("/status", bearer(tokens.watch))) == "screen")
        #expect(client(decide("/events?since=3&token=\(tokens.watch.text)")) == "screen")
        #expect(client(decide("/?token=\(tokens.trigger.text)")) == "tablet")
        #expect(decide("/client", bearer(tokens.operate)) == .serve(.client, origin: nil, client: pairings["phone"]))
    }

    @Test("Each role allows what the one before it allows, and no more")
    func roles() {
        #expect(client(decide("/events", bearer(tokens.watch))) == "screen")
        #expect(code(decide("/press?key=up", method: .POST, bearer(tokens.watch)))! == (403, .forbiddenRole))
        #expect(code(decide("/pause", method: .POST, bearer(tokens.watch)))! == (403, .forbiddenRole))
        #expect(client(decide("/press?key=up", method: .POST, bearer(tokens.trigger))) == "tablet")
        #expect(code(decide("/pause", method: .POST, bearer(tokens.trigger)))! == (403, .forbiddenRole))
        #expect(code(decide("/resume", method: .POST, bearer(tokens.trigger)))! == (403, .forbiddenRole))
        #expect(client(decide("/press?key=up", method: .POST, bearer(tokens.operate))) == "phone")
        #expect(decide("/pause", method: .POST, bearer(tokens.operate)) == .serve(.pause, origin: nil, client: pairings["phone"]))
    }

    @Test("A press names a volume key or another key, as a gesture (a tap unless told)")
    func press() {
        func route(_ query: String) -> HTTPRequestPolicy.Route? {
            if case .serve(let route, _, _) = decide("/press?" + query, method: .POST, bearer(tokens.trigger)) { route } else { nil }
        }
        #expect(route("key=up") == .press(.init(direction: .up, key: nil, gesture: .tap)))
        #expect(route("key=KEY_VOLUMEDOWN&gesture=double") == .press(.init(direction: .down, key: nil, gesture: .double)))
        #expect(route("key=KEY_ENTER&gesture=press") == .press(.init(direction: nil, key: 28, gesture: .press)))
        #expect(route("key=mute&gesture=hold") == .press(.init(direction: .mute, key: nil, gesture: .hold)))
        #expect(code(decide("/press", method: .POST, bearer(tokens.trigger)))! == (400, .missingField))
        #expect(code(decide("/press?key=sideways", method: .POST, bearer(tokens.trigger)))! == (400, .invalidField))
        #expect(code(decide("/press?key=up&gesture=wiggle", method: .POST, bearer(tokens.trigger)))! == (400, .invalidField))
        #expect(code(decide("/press?key=up", bearer(tokens.trigger)))! == (405, .methodNotAllowed))
    }

    @Test("Origin rules stand: a foreign page is refused even with a token; the listener's own page is not foreign")
    func origins() {
        #expect(code(decide("/press?key=up", method: .POST, bearer(tokens.trigger) + [("Origin", "http://evil.example")]))! == (403, .forbiddenOrigin))
        let own = decide("/press?key=up", method: .POST, bearer(tokens.trigger) + [("Origin", "http://192.168.1.5:8370")])
        #expect(client(own) == "tablet")
        #expect(
            decide("/status", method: .OPTIONS, [("Origin", "http://192.168.1.5:8370")])
                == .preflight(origin: WebOrigin("http://192.168.1.5:8370")!, methods: [.GET], privateNetwork: false), "a preflight carries no token")
    }

    @Test("On loopback today's rules stand; a press and /client need a token there too, and a token sent is checked")
    func loopback() {
        let host = "127.0.0.1:8370"
        #expect(decide("/status", policy: loopbackPolicy, host: host) == .serve(.status, origin: nil))
        #expect(decide("/", policy: loopbackPolicy, host: host) == .serve(.page, origin: nil))
        #expect(code(decide("/pause", method: .POST, policy: loopbackPolicy, host: host))! == (403, .forbiddenOrigin))
        #expect(code(decide("/press?key=up", method: .POST, policy: loopbackPolicy, host: host))! == (401, .tokenRequired))
        #expect(code(decide("/client", policy: loopbackPolicy, host: host))! == (401, .tokenRequired))
        #expect(code(decide("/status?token=wrongwrong", policy: loopbackPolicy, host: host))! == (401, .badToken))
        #expect(client(decide("/press?key=up", method: .POST, policy: loopbackPolicy, host: host, bearer(tokens.trigger))) == "tablet")
        let strict = HTTPRequestPolicy(
            origins: [], tokensRequired: HTTPSettings(address: ListenAddress(host: "127.0.0.1", port: 8370), tokensOnLoopback: true).tokensRequired)
        #expect(code(decide("/status", policy: strict, host: host))! == (401, .tokenRequired), "http-tokens asks for them on loopback too")
    }
}
