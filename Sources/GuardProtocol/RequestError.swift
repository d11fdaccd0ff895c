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
        /// A file the request needs the daemon to read (the pairings file) cannot be read, or is damaged.
        case unreadable
        // The HTTP listener's refusals (docs/PROTOCOL.md, "HTTP"), each under its HTTP status.
        /// 400: not HTTP the listener can read.
        case badRequest = "bad-request"
        /// 403: `Host` does not name the listener (DNS rebinding), or is missing.
        case forbiddenHost = "forbidden-host"
        /// 401: the request needs a paired client's token and carries none.
        case tokenRequired = "token-required"
        /// 401: the token is no paired client's (revoked, or mistyped).
        case badToken = "bad-token"
        /// 403: `Origin` is not in `http-origins`, or a `POST` carries neither one nor a token.
        case forbiddenOrigin = "forbidden-origin"
        /// 403: the client's role does not allow the path.
        case forbiddenRole = "forbidden-role"
        /// 404: no such path.
        case notFound = "not-found"
        /// 405: the path does not take this method.
        case methodNotAllowed = "method-not-allowed"
        /// 413: the request's body is over the limit.
        case bodyTooLarge = "body-too-large"
        /// 431: the request's head is over the limit.
        case headersTooLarge = "headers-too-large"
        /// 429: too many wrong tokens came from the address lately; `Retry-After` says when to ask again.
        case tooManyAttempts = "too-many-attempts"
        /// 429: the client has as many event streams open as one client may.
        case tooManyStreams = "too-many-streams"
        /// 503: the listener has as many connections as it takes.
        case tooManyClients = "too-many-clients"
        /// 503: the daemon is stopping: it takes no press.
        case stopping
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
