import GuardProtocol
import GuardSettings
import NIOHTTP1
import Pairing
import VolumeGuardCore

/// What the HTTP listener does with a request, decided from its head alone: which route serves it, or
/// why it is refused. A pure value, so that every rule is tested without a server.
///
/// A TCP port on loopback is open to every local user and to every web page the user visits, where the
/// control socket is open to the daemon's user alone. So:
/// - `Host` must name the listener: a page on a rebound DNS name (`evil.example` resolving to
///   127.0.0.1) sends its own name, and is refused.
/// - A request that carries an `Origin` (a browser's, from a page) is served only if that origin is in
///   `http-origins`, and only those origins get CORS headers.
/// - A `POST` must carry such an origin, or a paired client's token: one with neither changes nothing.
///
/// A listener on an address other than loopback is open to the whole network, so there every request
/// needs a paired client's token (`volume-guard pair`), and the client's role says what it may do; on
/// loopback too when `http-tokens` asks. A press of the client's own (`/press`) and `/client` need a token
/// everywhere: a press names the client that made it. The token comes in `Authorization: Bearer`, or in
/// the query's `token` (all a browser's `EventSource` can send). A page the listener serves itself (`/`)
/// comes from the listener's own origin, which needs no entry in `http-origins`.
struct HTTPRequestPolicy: Sendable {
    /// What serves a request that passed the checks.
    enum Route: Hashable, Sendable {
        /// An event stream, subscribed as `subscribe` would, resuming after the press seq `since` if given.
        case events(since: UInt64?, interests: SubscriberHub.Interests)
        case status
        case pause
        case resume
        /// The client's own press: a volume key or another key, as a gesture.
        case press(ClientPress)
        /// The client the token names, and its role.
        case client
        /// The tablet's page.
        case page
    }

    /// A press a paired client asks for: `key=up` (or `down`, `mute`, a kernel key name such as
    /// `KEY_ENTER`), `gesture=tap` (the default; or `press`, `double`, `hold`).
    struct ClientPress: Hashable, Sendable {
        var direction: Direction?
        var key: UInt16?
        var gesture: TriggerKind
    }

    /// A request refused: its status, and the JSON error body's code and message.
    struct Refusal: Error, Equatable, Sendable {
        var status: HTTPResponseStatus
        var error: RequestError
        /// For 405: the methods the path takes.
        var allow: [HTTPMethod] = []
        /// For 429: the seconds to wait before asking again.
        var retryAfter: Int?

        /// Whether it asks for a token (401): `WWW-Authenticate` says how to send one.
        var asksForToken: Bool { status == .unauthorized }

        /// A token that is no paired client's.
        static let badToken = Refusal(status: .unauthorized, error: RequestError(.badToken, "the token is not a paired client's (revoked, or mistyped)"))
    }

    enum Decision: Equatable, Sendable {
        /// Served by `route`; `origin` is echoed in CORS headers (nil: no `Origin` was sent). `client` is
        /// the paired client whose token came with it; nil when none did.
        case serve(Route, origin: WebOrigin?, client: PairedClient? = nil)
        /// A CORS preflight from an allowed origin: 204 with what `methods` the path takes, and whether
        /// Chrome asked for Private Network Access.
        case preflight(origin: WebOrigin, methods: [HTTPMethod], privateNetwork: Bool)
        /// `OPTIONS` with no `Origin`: 204 with `Allow`.
        case options(methods: [HTTPMethod])
        case refuse(Refusal)
    }

    /// The longest request target read; the rest of the head is bounded by NIOHTTP1's decoder
    /// (`headerListLimit`).
    static let targetLimit = 8 * 1024
    /// What the decoder reads of header names and values before it refuses the head with 431.
    static let headerListLimit = 16 * 1024
    /// NIOHTTP1's decoder, held to `headerListLimit` and a hundred fields.
    static let decoderLimits = {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderListSize = headerListLimit
        limits.maxHeaderFieldSize = headerListLimit
        limits.maxHeaderFieldCount = 100
        return limits
    }()
    /// The longest body read: no route takes one, so it is read and dropped, up to this.
    static let bodyLimit = 4 * 1024

    let origins: Set<WebOrigin>
    /// Whether every request needs a paired client's token: on any address but loopback, and on loopback
    /// when `http-tokens` asks.
    let tokensRequired: Bool

    init(origins: some Sequence<WebOrigin>, tokensRequired: Bool = false) {
        self.origins = Set(origins)
        self.tokensRequired = tokensRequired
    }

    /// What each path takes: its methods, the role it needs, and whether it needs a token wherever the
    /// listener is.
    private struct Access {
        var methods: [HTTPMethod]
        var role: ClientRole
        var alwaysNeedsToken = false
    }

    private static let paths: [Substring: Access] = [
        "/": Access(methods: [.GET], role: .watch),
        "/events": Access(methods: [.GET], role: .watch),
        "/status": Access(methods: [.GET], role: .watch),
        "/client": Access(methods: [.GET], role: .watch, alwaysNeedsToken: true),
        "/press": Access(methods: [.POST], role: .trigger, alwaysNeedsToken: true),
        "/pause": Access(methods: [.POST], role: .operate),
        "/resume": Access(methods: [.POST], role: .operate),
    ]

    /// The decision for `head`, arriving at a listener known by `hosts`, whose paired clients are `pairings`.
    func decide(_ head: HTTPRequestHead, hosts: ListenerHosts, pairings: Pairings = Pairings()) -> Decision {
        do {
            return try decision(head, hosts: hosts, pairings: pairings)
        } catch {
            return .refuse(error)
        }
    }

    private func decision(_ head: HTTPRequestHead, hosts: ListenerHosts, pairings: Pairings) throws(Refusal) -> Decision {
        guard head.uri.utf8.count <= Self.targetLimit else {
            throw Refusal(status: .requestHeaderFieldsTooLarge, error: RequestError(.headersTooLarge, "the request target is over \(Self.targetLimit) bytes"))
        }
        let host = head.headers["Host"]
        guard host.count == 1, hosts.named(by: host[0]) else {
            throw Refusal(status: .forbidden, error: RequestError(.forbiddenHost, "the Host header must name this listener: \(hosts.primary)"))
        }
        let origin = try allowedOrigin(head.headers, own: WebOrigin("http://" + host[0]))
        let (path, query) = Self.split(head.uri)
        guard let access = Self.paths[path] else {
            throw Refusal(status: .notFound, error: RequestError(.notFound, "no such path; known: \(Self.paths.keys.sorted().joined(separator: ", "))"))
        }
        let methods = access.methods
        if head.method == .OPTIONS {
            let privateNetwork = head.headers["Access-Control-Request-Private-Network"].first == "true"
            return origin.map { .preflight(origin: $0, methods: methods, privateNetwork: privateNetwork) } ?? .options(methods: methods)
        }
        guard methods.contains(head.method) else {
            let allowed = methods.map(\.rawValue).joined(separator: ", ")
            throw Refusal(status: .methodNotAllowed, error: RequestError(.methodNotAllowed, "\(path) takes \(allowed)"), allow: methods)
        }
        let client = try Self.client(presenting: Self.token(head.headers, query: query), pairings: pairings)
        if let client {
            guard client.role.allows(access.role) else {
                throw Refusal(
                    status: .forbidden,
                    error: RequestError(.forbiddenRole, "\(client.name) is paired as \(client.role.rawValue); \(path) needs \(access.role.rawValue)"))
            }
        } else if tokensRequired || access.alwaysNeedsToken {
            throw Refusal(status: .unauthorized, error: RequestError(.tokenRequired, "\(path) needs a paired client's token: volume-guard pair NAME"))
        }
        if let length = head.headers["Content-Length"].first.flatMap(Int.init), length > Self.bodyLimit {
            throw Refusal(status: .payloadTooLarge, error: RequestError(.bodyTooLarge, "a request body is at most \(Self.bodyLimit) bytes"))
        }
        if head.method == .POST, origin == nil, client == nil {
            throw Refusal(
                status: .forbidden,
                error: RequestError(.forbiddenOrigin, "a POST must come from a page whose origin is in http-origins, or with a paired client's token"))
        }
        let route: Route =
            switch path {
            case "/events": try Self.events(query: query, lastEventID: head.headers["Last-Event-ID"].first)
            case "/status": .status
            case "/pause": .pause
            case "/resume": .resume
            case "/press": .press(try Self.press(query: query))
            case "/client": .client
            default: .page
            }
        return .serve(route, origin: origin, client: client)
    }

    /// The token the request carries, as sent: in `Authorization: Bearer`, else in the query's `token`;
    /// nil for none.
    private static func token(_ headers: HTTPHeaders, query: [(name: Substring, value: Substring)]) throws(Refusal) -> Substring? {
        let authorization = headers["Authorization"]
        if let header = authorization.first {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard authorization.count == 1, parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw Refusal(status: .badRequest, error: RequestError(.invalidField, "Authorization must be one \"Bearer\" and a token"))
            }
            return parts[1].drop { $0 == " " }
        }
        return query.last { $0.name == "token" }?.value
    }

    /// The client whose token was sent; nil when none was. A token that is no client's is refused.
    private static func client(presenting sent: Substring?, pairings: Pairings) throws(Refusal) -> PairedClient? {
        guard let sent else { return nil }
        guard let token = Token(sent), let client = pairings.client(presenting: token) else {
            throw .badToken
        }
        return client
    }

    /// `/press`: `key` (required) and `gesture`.
    private static func press(query: [(name: Substring, value: Substring)]) throws(Refusal) -> ClientPress {
        guard let key = query.last(where: { $0.name == "key" })?.value else {
            throw Refusal(status: .badRequest, error: RequestError(.missingField, "/press needs key: up, down, mute or a key's name (KEY_ENTER)"))
        }
        var press = ClientPress(gesture: .tap)
        if let direction = Direction(rawValue: String(key)) {
            press.direction = direction
        } else if let code = KeyNames.code(String(key)) {
            press.direction = Direction(key: code)
            press.key = press.direction == nil ? code : nil
        } else {
            throw invalid("key", "must be up, down, mute or a key's name (KEY_ENTER)")
        }
        if let gesture = query.last(where: { $0.name == "gesture" })?.value {
            guard let kind = TriggerKind(rawValue: String(gesture)) else { throw invalid("gesture", "must be tap, press, double or hold") }
            press.gesture = kind
        }
        return press
    }

    /// The request's origin when it is allowed (in `http-origins`, or `own`, the listener's, for its own
    /// page); nil when it sent none. A foreign one is refused.
    private func allowedOrigin(_ headers: HTTPHeaders, own: WebOrigin?) throws(Refusal) -> WebOrigin? {
        let sent = headers["Origin"]
        guard !sent.isEmpty else { return nil }
        guard sent.count == 1, let origin = WebOrigin(sent[0]), origins.contains(origin) || origin == own else {
            throw Refusal(status: .forbidden, error: RequestError(.forbiddenOrigin, "origin \(sent.joined(separator: ", ")) is not in http-origins"))
        }
        return origin
    }

    /// `/events`: `since`, `gestures` and `states` as `subscribe` takes them; a `Last-Event-ID` (an
    /// `EventSource` reconnecting, with the seq of the last press it got) is a `since` too, and wins over
    /// the one the URL still carries from the first connect.
    private static func events(query: [(name: Substring, value: Substring)], lastEventID: String?) throws(Refusal) -> Route {
        var since: UInt64?
        var interests = SubscriberHub.Interests()
        for (name, value) in query {
            switch name {
            case "since": since = try seq(value, field: "since")
            case "gestures": interests.gestures = try flag(value, field: "gestures")
            case "states": interests.states = try flag(value, field: "states")
            default: continue
            }
        }
        if let lastEventID, !lastEventID.isEmpty {
            since = try seq(Substring(lastEventID), field: "Last-Event-ID")
        }
        return .events(since: since, interests: interests)
    }

    /// A press seq written in ASCII digits, as the socket's `since` takes it: 0 to 2⁶⁴ − 1.
    private static func seq(_ text: Substring, field: String) throws(Refusal) -> UInt64 {
        guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seq = UInt64(text) else {
            throw invalid(field, "must be a press seq: a whole number, 0 or more")
        }
        return seq
    }

    private static func flag(_ text: Substring, field: String) throws(Refusal) -> Bool {
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default: throw invalid(field, "must be true or false")
        }
    }

    private static func invalid(_ field: String, _ problem: String) -> Refusal {
        Refusal(status: .badRequest, error: RequestError(.invalidField, "\(field) \(problem)"))
    }

    /// The target's path, and its query as name and value pairs (no percent-decoding: no value taken
    /// needs it).
    private static func split(_ target: String) -> (path: Substring, query: [(name: Substring, value: Substring)]) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let pairs = parts.count == 2 ? parts[1].split(separator: "&") : []
        let query = pairs.map { pair -> (name: Substring, value: Substring) in
            let field = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (field[0], field.count == 2 ? field[1] : "")
        }
        return (parts[0], query)
    }
}

/// The names a request's `Host` may give for the listener, from the address the connection came in on:
/// that address and port, and `localhost` with the port when it is loopback (port 80 may go unwritten).
struct ListenerHosts: Hashable, Sendable {
    private let names: Set<String>
    /// The name error messages give.
    let primary: String

    init(address: ListenAddress) {
        primary = address.description
        var names = [primary]
        if address.isLoopback { names.append("localhost:\(address.port)") }
        if address.port == 80 { names += names.map { String($0.dropLast(":80".count)) } }
        self.names = Set(names)
    }

    func named(by host: String) -> Bool {
        names.contains(host.lowercased())
    }
}
