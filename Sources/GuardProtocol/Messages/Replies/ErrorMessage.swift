/// Reply to a request that cannot be served; the connection stays open.
public struct ErrorMessage: Hashable, Sendable, Codable {
    public var type = "error"
    public var id: RequestID?
    public var code: RequestError.Code
    public var message: String

    public init(_ error: RequestError) {
        id = error.id
        code = error.code
        message = error.message
    }
}
