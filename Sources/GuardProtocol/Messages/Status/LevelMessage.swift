/// A level as clients see it: the loudest channel in percent, and every channel's raw value.
public struct LevelMessage: Hashable, Sendable, Codable {
    public var percent: Double
    public var raw: [UInt32]

    public init(percent: Double, raw: [UInt32]) {
        self.percent = percent
        self.raw = raw
    }
}
