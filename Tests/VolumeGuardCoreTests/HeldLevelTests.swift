import Testing
import VolumeGuardCore

@Suite("Held level")
struct HeldLevelTests {
    @Test("holds a sink at 100 % one raw unit under it, so an up key is still seen")
    func ceilingAtFull() {
        #expect(HeldLevel(holding: .channels(Raw.full, Raw.full)).volume == .channels(65535, 65535))
    }

    @Test("scales a sink over 100 % down to the ceiling, keeping its balance")
    func amplifiedScaledDown() {
        #expect(HeldLevel(holding: .channels(70000, 35000)).volume == .channels(65535, 32768))
        #expect(HeldLevel(holding: .channels(98304, 65536, 32768)).volume == .channels(65535, 43690, 21845))
    }

    @Test("raises a silent channel to one raw unit, so a down key is still seen")
    func floorAtSilence() {
        #expect(HeldLevel(holding: .channels(0, 0)).volume == .channels(1, 1))
        #expect(HeldLevel(holding: .channels(0, 40000)).volume == .channels(1, 40000))
    }

    @Test("floors the quiet channel of a scaled-down sink too")
    func scaledThenFloored() {
        #expect(HeldLevel(holding: .channels(70000, 0)).volume == .channels(65535, 1))
    }

    @Test(
        "leaves a level inside the range alone",
        arguments: [
            [1], [65535], [30000, 20000], [32768, 32768, 32768, 32768, 32768, 32768], [1, 65535],
        ] as [[UInt32]])
    func inRangeUntouched(channels: [UInt32]) {
        #expect(HeldLevel(holding: SinkVolume(channels: channels)).volume.channels == channels)
    }

    @Test("admits only levels with every channel between floor and ceiling")
    func admits() {
        #expect(HeldLevel.admits(.channels(1, 65535)))
        #expect(HeldLevel.admits(.channels(30000)))
        #expect(!HeldLevel.admits(.channels(0, 30000)))
        #expect(!HeldLevel.admits(.channels(30000, Raw.full)))
    }

    @Test(
        "every held level is admitted",
        arguments: [
            [0], [Raw.full], [70000, 35000], [0, 0], [131072, 1], [42, 65535],
        ] as [[UInt32]])
    func heldIsAdmitted(channels: [UInt32]) {
        #expect(HeldLevel.admits(HeldLevel(holding: SinkVolume(channels: channels)).volume))
    }
}

@Suite("Held level with a margin")
struct HeldLevelMarginTests {
    @Test func margin() {
        #expect(HeldLevel(holding: .channels(65536, 32768), margin: 655).volume == .channels(64881, 32441))
        #expect(HeldLevel(holding: .channels(0, 40000), margin: 655).volume == .channels(655, 40000))
        #expect(HeldLevel.admits(.channels(655, 64881), margin: 655))
        #expect(!HeldLevel.admits(.channels(654, 30000), margin: 655))
        #expect(!HeldLevel.admits(.channels(30000, 64882), margin: 655))
    }
}
