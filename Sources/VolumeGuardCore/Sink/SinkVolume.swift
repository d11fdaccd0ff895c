/// A sink's volume as the audio server stores it: one raw value per channel.
///
/// Raw values are libpulse's `pa_volume_t`: `SinkVolume.norm` (65536) is 100 %, 0 is silence, and values
/// above the norm are amplification. Keeping every channel (rather than one "level") is what lets the
/// guard put a balanced or multichannel sink back exactly as it was.
public struct SinkVolume: Hashable, Sendable, CustomStringConvertible {
    /// 100 %: libpulse's `PA_VOLUME_NORM`.
    public static let norm: UInt32 = 65536

    public var channels: [UInt32]

    public init(channels: [UInt32]) {
        precondition(!channels.isEmpty, "a sink has at least one channel")
        self.channels = channels
    }

    /// The most channels a sink has: libpulse's `PA_CHANNELS_MAX`.
    public static let channelLimit = 32
    /// The loudest raw value libpulse takes: `PA_VOLUME_MAX`.
    public static let rawLimit: UInt32 = .max / 2

    /// `channels`, if an audio server could have them: 1 to `channelLimit` of them, none above `rawLimit`.
    /// What is read from outside (a record on disk) is checked so.
    public init?(validating channels: [UInt32]) {
        guard (1...Self.channelLimit).contains(channels.count), channels.allSatisfy({ $0 <= Self.rawLimit }) else { return nil }
        self.init(channels: channels)
    }

    /// The same raw value on `count` channels.
    public init(uniform raw: UInt32, count: Int) {
        self.init(channels: Array(repeating: raw, count: count))
    }

    /// The loudest channel: what desktops show as the sink's volume and what keys step.
    public var max: UInt32 { channels.max()! }

    /// The loudest channel in percent of the norm.
    public var percent: Double { Double(max) * 100 / Double(Self.norm) }

    /// Every channel scaled so that the loudest is `newMax`, keeping the balance (like `pa_cvolume_scale`).
    public func scaled(toMax newMax: UInt32) -> SinkVolume {
        let current = max
        guard current > 0 else { return SinkVolume(uniform: newMax, count: channels.count) }
        return SinkVolume(
            channels: channels.map {
                UInt32((UInt64($0) * UInt64(newMax) + UInt64(current) / 2) / UInt64(current))
            })
    }

    /// Whether every channel is within `tolerance` raw units of `other`'s.
    public func isClose(to other: SinkVolume, tolerance: UInt32) -> Bool {
        channels.count == other.channels.count
            && zip(channels, other.channels).allSatisfy { $0 > $1 ? $0 - $1 <= tolerance : $1 - $0 <= tolerance }
    }

    public var description: String {
        "\(channels.map(String.init).joined(separator: "/")) (\((percent * 100).rounded() / 100) %)"
    }
}
