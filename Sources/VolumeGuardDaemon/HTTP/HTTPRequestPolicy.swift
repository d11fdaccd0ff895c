import GuardProtocol
import GuardSettings
import NIOHTTP1

/// What the HTTP listener does with a request, decided from its head alone: which route serves it, or
/// why it is refused. A pure value, so that every rule is tested without a server.
///
/// A TCP port on loopback is open to every local user and to every web page the user visits, where the
/// control socket is open to the daemon's user alone. So:
/// - `Host` must name the listener: a page on a rebound DNS name (`evil.example` resolving to
///   127.0.0.1) sends its own name, and is refused.
/// - A request that carries an `Origin` (a browser's, from a page) is served only if that origin is in
///   `http-origins`, and only those origins get CORS headers.
/// - A `POST` must carry such an origin: one with none, or a foreign one, changes nothing.
struct HTTPRequestPolicy: Sendable {
    /// What serves a request that passed the checks.
    enum Route: Hashable, Sendable {
        /// An event stream, subscribed as `subscribe` would, resuming after the press seq `since` if given.
        case events(since: UInt64?, interests: SubscriberHub.Interests)
        case status
        case pause
        case resume
    }

    /// A request refused: its status, and the JSON error body's code and message.
    struct Refusal: Error, Equatable, Sendable {
        var status: HTTPResponseStatus
        var error: RequestError
        /// For 405: the methods the path takes.
        var allow: [HTTPMethod] = []
    }

    enum Decision: Equatable, Sendable {
        /// Served by `route`; `origin` is echoed in CORS headers (nil: no `Origin` was sent).
        case serve(Route, origin: WebOrigin?)
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

    init(origins: some Sequence<WebOrigin>) {
        self.origins = Set(origins)
    }

    /// The decision for `head`, arriving at a listener known by `hosts`.
    func decide(_ head: HTTPRequestHead, hosts: ListenerHosts) -> Decision {
        do {
            return try decision(head, hosts: hosts)
        } catch {
            return .refuse(error)
        }
    }

    private func decision(_ head: HTTPRequestHead, hosts: ListenerHosts) throws(Refusal) -> Decision {
        guard head.uri.utf8.count <= Self.targetLimit else {
            throw Refusal(status: .requestHeaderFieldsTooLarge, error: RequestError(.headersTooLarge, "the request target is over \(Self.targetLimit) bytes"))
        }
        let host = head.headers["Host"]
        guard host.count == 1, hosts.named(by: host[0]) else {
            throw Refusal(status: .forbidden, error: RequestError(.forbiddenHost, "the Host header must name this listener: \(hosts.primary)"))
        }
        let origin = try allowedOrigin(head.headers)
        let (path, query) = Self.split(head.uri)
        let methods: [HTTPMethod] =
            switch path {
            case "/events", "/status": [.GET]
            case "/pause", "/resume": [.POST]
            default: throw Refusal(status: .notFound, error: RequestError(.notFound, "no such path; known: /events, /status, /pause, /resume"))
            }
        if head.method == .OPTIONS {
            let privateNetwork = head.headers["Access-Control-Request-Private-Network"].first == "true"
            return origin.map { .preflight(origin: $0, methods: methods, privateNetwork: privateNetwork) } ?? .options(methods: methods)
        }
        guard methods.contains(head.method) else {
            let allowed = methods.map(\.rawValue).joined(separator: ", ")
            throw Refusal(status: .methodNotAllowed, error: RequestError(.methodNotAllowed, "\(path) takes \(allowed)"), allow: methods)
        }
        if let length = head.headers["Content-Length"].first.flatMap(Int.init), length > Self.bodyLimit {
            throw Refusal(status: .payloadTooLarge, error: RequestError(.bodyTooLarge, "a request body is at most \(Self.bodyLimit) bytes"))
        }
        switch path {
        case "/events":
            return .serve(try Self.events(query: query, lastEventID: head.headers["Last-Event-ID"].first), origin: origin)
        case "/status":
            return .serve(.status, origin: origin)
        default:
            guard let origin else {
                throw Refusal(status: .forbidden, error: RequestError(.forbiddenOrigin, "a POST must come from a page whose origin is in http-origins"))
            }
            return .serve(path == "/pause" ? .pause : .resume, origin: origin)
        }
    }

    /// The request's origin when it is allowed; nil when it sent none. A foreign one is refused.
    private func allowedOrigin(_ headers: HTTPHeaders) throws(Refusal) -> WebOrigin? {
        let sent = headers["Origin"]
        guard !sent.isEmpty else { return nil }
        guard sent.count == 1, let origin = WebOrigin(sent[0]), origins.contains(origin) else {
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
