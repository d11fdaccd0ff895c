import CPulse
import VolumeGuardCore

extension SinkState {
    /// Copies what the guard needs out of a `pa_sink_info`, which lives only during its callback.
    init(_ info: pa_sink_info) {
        var levels = info.volume
        self.init(
            index: info.index,
            name: String(cString: info.name),
            volume: SinkVolume(channels: (0..<UInt32(levels.channels)).map { cpulse_cvolume_get(&levels, $0) }),
            muted: info.mute != 0
        )
    }
}

extension pa_cvolume {
    /// Every channel of `volume`, so the server keeps the balance (PipeWire averages a short list).
    init(_ volume: SinkVolume) {
        self.init()
        pa_cvolume_init(&self)
        channels = UInt8(volume.channels.count)
        for (channel, raw) in volume.channels.enumerated() {
            cpulse_cvolume_put(&self, UInt32(channel), raw)
        }
    }
}
