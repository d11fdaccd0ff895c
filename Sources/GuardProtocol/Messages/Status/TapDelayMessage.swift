/// How long an action on taps waits after the press, in milliseconds, per source; absent for a source it
/// does not hear.
public struct TapDelayMessage: Hashable, Sendable, Codable {
    public var input: Int?
    public var sink: Int?

    public init(input: Int? = nil, sink: Int? = nil) {
        self.input = input
        self.sink = sink
    }
}
