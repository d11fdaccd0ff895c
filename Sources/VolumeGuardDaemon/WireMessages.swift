import GuardProtocol
import VolumeGuardCore

/// The wire's lines made from the core's values: the one place that says how a press, a gesture, a
/// level and the counts are sent.
extension LevelMessage {
    /// The loudest channel in percent, to two decimals, and every channel's raw value.
    init(_ volume: SinkVolume) {
        self.init(percent: (volume.percent * 100).rounded() / 100, raw: volume.channels)
    }
}

extension PressCountsMessage {
    init(_ counts: PressCounts) {
        self.init(up: counts.up, down: counts.down, mute: counts.mute)
    }
}

extension PressMessage {
    init(_ press: Press, time: String) {
        self.init(seq: press.seq, direction: press.direction, count: press.count, sink: press.sink, time: time)
    }
}

extension GestureMessage {
    init(_ gesture: Gesture, sink: String?, time: String) {
        self.init(gesture: gesture.kind, direction: gesture.direction, seq: gesture.seq, presses: gesture.presses, sink: sink, time: time)
    }
}
