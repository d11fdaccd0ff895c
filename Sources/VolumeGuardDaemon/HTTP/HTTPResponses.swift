import GuardProtocol
import GuardSettings
import NIOCore
import NIOHTTP1

/// The HTTP listener's responses, as the parts NIOHTTP1 encodes: JSON bodies (the socket's own reply
/// and error lines), the event stream's head, and CORS headers for exactly the allowed origins.
enum HTTPResponses {
    /// A JSON reply: `line` is what the socket would send.
    static func json(
        _ line: ByteBuffer, status: HTTPResponseStatus = .ok, origin: WebOrigin?, keepAlive: Bool, extra: [(String, String)] = []
    ) -> [HTTPServerResponsePart] {
        var headers = common(origin: origin, keepAlive: keepAlive)
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "\(line.readableBytes)")
        headers.add(contentsOf: extra)
        return [.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)), .body(.byteBuffer(line)), .end(nil)]
    }

    /// A refusal: its status, and the protocol's error line as the body; for the page (`asPage`), the
    /// page's own words for it, so that a tablet shows what went wrong and what to do.
    static func refusal(_ refusal: HTTPRequestPolicy.Refusal, origin: WebOrigin?, keepAlive: Bool, asPage: Bool = false) -> [HTTPServerResponsePart] {
        var extra = refusal.allow.isEmpty ? [] : [("Allow", refusal.allow.map(\.rawValue).joined(separator: ", "))]
        if refusal.asksForToken { extra.append(("WWW-Authenticate", #"Bearer realm="volume-guard""#)) }
        if let seconds = refusal.retryAfter { extra.append(("Retry-After", "\(seconds)")) }
        guard asPage else {
            return json(ByteBuffer(line: ErrorMessage(refusal.error)), status: refusal.status, origin: origin, keepAlive: keepAlive, extra: extra)
        }
        return page(TabletPage.refusal(refusal.error), status: refusal.status, keepAlive: keepAlive, extra: extra)
    }

    /// An HTML page of the listener's own: no script or style from anywhere else, and never framed.
    static func page(_ html: String, status: HTTPResponseStatus = .ok, keepAlive: Bool, extra: [(String, String)] = []) -> [HTTPServerResponsePart] {
        let body = ByteBuffer(string: html)
        var headers = common(origin: nil, keepAlive: keepAlive)
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        headers.add(
            name: "Content-Security-Policy",
            value: "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(contentsOf: extra)
        return [.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)), .body(.byteBuffer(body)), .end(nil)]
    }

    /// The answer to a CORS preflight from an allowed origin (or to a plain `OPTIONS`, with none).
    /// `privateNetwork` answers Chrome's Private Network Access question (a public page asking for a
    /// loopback address): the origin is allowed, so the answer is yes.
    static func options(methods: [HTTPMethod], origin: WebOrigin?, privateNetwork: Bool, keepAlive: Bool) -> [HTTPServerResponsePart] {
        var headers = common(origin: origin, keepAlive: keepAlive)
        let listed = methods.map(\.rawValue).joined(separator: ", ")
        headers.add(name: "Allow", value: listed + ", OPTIONS")
        headers.add(name: "Content-Length", value: "0")
        if origin != nil {
            headers.add(name: "Access-Control-Allow-Methods", value: listed)
            headers.add(name: "Access-Control-Allow-Headers", value: "Authorization, Content-Type, Last-Event-ID")
            headers.add(name: "Access-Control-Max-Age", value: "600")
            if privateNetwork { headers.add(name: "Access-Control-Allow-Private-Network", value: "true") }
        }
        return [.head(HTTPResponseHead(version: .http1_1, status: .noContent, headers: headers)), .end(nil)]
    }

    /// The head of an event stream: its body never ends while the daemon runs.
    static func eventStreamHead(origin: WebOrigin?) -> HTTPServerResponsePart {
        var headers = common(origin: origin, keepAlive: false)
        headers.add(name: "Content-Type", value: "text/event-stream")
        // Proxies that buffer (nginx) would hold presses back.
        headers.add(name: "X-Accel-Buffering", value: "no")
        return .head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))
    }

    /// What every response carries: never cached, never sniffed as another type, and CORS for `origin`.
    private static func common(origin: WebOrigin?, keepAlive: Bool) -> HTTPHeaders {
        var headers = HTTPHeaders([
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            ("Vary", "Origin"),
            ("Connection", keepAlive ? "keep-alive" : "close"),
        ])
        if let origin { headers.add(name: "Access-Control-Allow-Origin", value: origin.description) }
        return headers
    }
}
