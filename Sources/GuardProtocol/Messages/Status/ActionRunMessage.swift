/// One run of an action.
public struct ActionRunMessage: Hashable, Sendable, Codable {
    /// The seq of the press that started it.
    public var seq: UInt64
    /// When it started: ISO 8601, UTC, milliseconds.
    public var time: String
    public var result: ActionResult
    /// The exit status, when it `exited`; the signal's number, when it was `signaled`.
    public var status: Int?
    public var signal: Int?
    /// Why it could not start, when it `failed`.
    public var error: String?
    /// How long it ran, once it ended.
    public var seconds: Double?

    public init(
        seq: UInt64, time: String, result: ActionResult, status: Int? = nil, signal: Int? = nil, error: String? = nil, seconds: Double? = nil
    ) {
        self.seq = seq
        self.time = time
        self.result = result
        self.status = status
        self.signal = signal
        self.error = error
        self.seconds = seconds
    }
}
