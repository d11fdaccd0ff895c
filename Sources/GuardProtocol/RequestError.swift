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
