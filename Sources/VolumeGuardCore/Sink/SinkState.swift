/// What a read of a sink returned: the facts the guard decides on, copied out of libpulse.
public struct SinkState: Hashable, Sendable {
    /// The server's index for the sink; it changes when the server restarts.
    public var index: UInt32
    /// The sink's stable name, e.g. `alsa_output.pci-0000_00_1f.3.analog-stereo`.
    public var name: String
    public var volume: SinkVolume
    public var muted: Bool

    public init(index: UInt32, name: String, volume: SinkVolume, muted: Bool) {
        self.index = index
        self.name = name
        self.volume = volume
        self.muted = muted
    }

    var level: SinkLevel { SinkLevel(volume: volume, muted: muted) }
}

/// A volume and mute state, as recorded and restored.
public struct SinkLevel: Hashable, Sendable {
    public var volume: SinkVolume
    public var muted: Bool

    public init(volume: SinkVolume, muted: Bool) {
        self.volume = volume
        self.muted = muted
    }
}

/// How the guard asks for a sink: by the index an event named, or by name when it starts guarding one.
public enum SinkQuery: Hashable, Sendable {
    case index(UInt32)
    case name(String)
}
