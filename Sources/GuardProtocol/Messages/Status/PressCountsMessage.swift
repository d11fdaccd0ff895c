public struct PressCountsMessage: Hashable, Sendable, Codable {
    public var up: Int
    public var down: Int
    public var mute: Int

    public init(up: Int, down: Int, mute: Int) {
        self.up = up
        self.down = down
        self.mute = mute
    }
}
