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
        self.init(
            seq: press.seq, direction: press.direction, key: press.key.map(KeyNames.name), count: press.count, source: press.origin.source,
            sink: press.origin.sink, device: press.origin.device?.name, path: press.origin.device?.node, client: press.origin.client,
            time: time
        )
    }
}

extension ReleaseMessage {
    init(_ release: Release, time: String) {
        self.init(
            seq: release.seq, direction: release.direction, key: KeyNames.name(release.key), device: release.device.name,
            path: release.device.node, cause: release.cause, heldMilliseconds: Int(release.held / .milliseconds(1)), time: time
        )
    }
}

extension GestureMessage {
    init(_ gesture: Gesture, time: String) {
        self.init(
            gesture: gesture.kind, direction: gesture.direction, key: gesture.key.map(KeyNames.name), seq: gesture.seq,
            presses: gesture.presses, source: gesture.origin.source, sink: gesture.origin.sink, device: gesture.origin.device?.name,
            path: gesture.origin.device?.node, client: gesture.origin.client, cause: gesture.cause, time: time
        )
    }
}

extension Origin {
    fileprivate var sink: String? {
        if case .sink(let name) = self { name } else { nil }
    }

    fileprivate var device: DeviceRef? {
        if case .device(let device) = self { device } else { nil }
    }

    fileprivate var client: String? {
        if case .client(let name) = self { name } else { nil }
    }
}
