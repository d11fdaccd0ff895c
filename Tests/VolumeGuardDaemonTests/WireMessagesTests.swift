import GuardProtocol
import Testing
import VolumeGuardCore

@testable import VolumeGuardDaemon

@Suite("The core's values on the wire")
struct WireMessagesTests {
    @Test("A level reports the loudest channel in percent, to two decimals, and every raw channel")
    func level() {
        let level = LevelMessage(SinkVolume(channels: [32768, 16384, 21845]))
        #expect(level.percent == 50)
        #expect(level.raw == [32768, 16384, 21845])
        #expect(LevelMessage(SinkVolume(channels: [21845])).percent == 33.33)
    }

    @Test("A press and a gesture keep every field of the core's")
    func pressAndGesture() {
        let press = PressMessage(Press(seq: 5, direction: .down, count: 2, sink: "guard_a"), time: "t")
        #expect(press == PressMessage(seq: 5, direction: .down, count: 2, sink: "guard_a", time: "t"))
        let gesture = GestureMessage(Gesture(kind: .double, direction: .up, seq: 7, presses: 2, origin: .sink("guard_a")), time: "t")
        #expect(gesture == GestureMessage(gesture: .double, direction: .up, seq: 7, presses: 2, sink: "guard_a", time: "t"))
    }

    @Test("A device's press, release and hold name the source, the device, its node and the key")
    func device() {
        let remote = DeviceRef(name: "AB Shutter3 Consumer Control", node: "/dev/input/event6")
        let press = PressMessage(Press(seq: 3, direction: nil, key: 28, count: 1, origin: .device(remote)), time: "t")
        #expect(
            press
                == PressMessage(
                    seq: 3, direction: nil, key: "KEY_ENTER", count: 1, source: .input, sink: nil, device: remote.name, path: remote.node, time: "t"))
        let release = ReleaseMessage(
            Release(seq: 3, direction: .up, key: 115, device: remote, cause: .deviceGone, held: .milliseconds(1500)), time: "t")
        #expect(release.key == "KEY_VOLUMEUP")
        #expect(release.heldMilliseconds == 1500)
        #expect(release.cause == .deviceGone)
        let end = GestureMessage(
            Gesture(kind: .holdEnd, direction: .up, key: 115, seq: 3, presses: 1, origin: .device(remote), cause: .keyUp), time: "t")
        #expect(end.source == .input && end.device == remote.name && end.cause == .keyUp && end.sink == nil)
    }

    @Test("The counts are sent per direction")
    func counts() {
        var counts = PressCounts()
        counts[.up] = 3
        counts[.mute] = 1
        #expect(PressCountsMessage(counts) == PressCountsMessage(up: 3, down: 0, mute: 1))
    }
}
