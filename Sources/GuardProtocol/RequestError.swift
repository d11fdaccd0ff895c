/// Why a request line could not be served; sent back as an `error` reply with a stable `code`.
public struct RequestError: Error, Hashable, Sendable {
    /// Stable machine-readable reasons. Clients may switch on them; new codes may be added.
    public enum Code: String, Hashable, Sendable, Codable {
        case emptyRequest = "empty-request"
        case invalidUTF8 = "invalid-utf8"
        case invalidJSON = "invalid-json"
        case notAnObject = "not-an-object"
        case missingField = "missing-field"
        case invalidField = "invalid-field"
        case unknownCommand = "unknown-command"
        case lineTooLong = "line-too-long"
        /// The client did not read its replies and presses; it is cut loose.
        case tooSlow = "too-slow"
        // The HTTP listener's refusals (docs/PROTOCOL.md, "HTTP"), each under its HTTP status.
        /// 400: not HTTP the listener can read.
        case badRequest = "bad-request"
        /// 403: `Host` does not name the listener (DNS rebinding), or is missing.
        case forbiddenHost = "forbidden-host"
        /// 403: `Origin` is not in `http-origins`, or a `POST` carries none.
        case forbiddenOrigin = "forbidden-origin"
        /// 404: no such path.
        case notFound = "not-found"
        /// 405: the path does not take this method.
        case methodNotAllowed = "method-not-allowed"
        /// 413: the request's body is over the limit.
        case bodyTooLarge = "body-too-large"
        /// 431: the request's head is over the limit.
        case headersTooLarge = "headers-too-large"
        /// 503: the listener has as many connections as it takes.
        case tooManyClients = "too-many-clients"
    }

    public var code: Code
    public var message: String
    /// The request's id, when it could be read.
    public var id: RequestID?

    public init(_ code: Code, _ message: String, id: RequestID? = nil) {
        self.code = code
        self.message = message
        self.id = id
    }
}
