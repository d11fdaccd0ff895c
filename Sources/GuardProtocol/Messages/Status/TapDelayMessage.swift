/// How long an action on taps waits after the press, in milliseconds, per source; absent for a source it
/// does not hear.
public struct TapDelayMessage: Hashable, Sendable, Codable {
    public var input: Int?
    public var sink: Int?
    /// True when on a device it waits for the key's release too (a hold is looked for on its keys).
    public var release: Bool?

    public init(input: Int? = nil, sink: Int? = nil, release: Bool? = nil) {
        self.input = input
        self.sink = sink
        self.release = release
    }
}
