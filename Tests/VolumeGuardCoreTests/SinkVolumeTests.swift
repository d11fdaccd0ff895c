import Testing
import VolumeGuardCore

@Suite("Sink volume")
struct SinkVolumeTests {
    @Test("the loudest channel is the sink's volume")
    func maxAndPercent() {
        let volume = SinkVolume.channels(30000, Raw.full / 2)
        #expect(volume.max == 32768)
        #expect(volume.percent == 50)
        #expect(SinkVolume(uniform: 7, count: 3).channels == [7, 7, 7])
    }

    @Test("scaling keeps the balance between channels")
    func scaledKeepsBalance() {
        #expect(SinkVolume.channels(40000, 20000).scaled(toMax: 30000) == .channels(30000, 15000))
        #expect(SinkVolume.channels(20000, 40000, 10000).scaled(toMax: 60000) == .channels(30000, 60000, 15000))
    }

    @Test("scaling rounds to the nearest raw unit")
    func scaledRounds() {
        // 3 * 2 / 4 = 1.5 rounds up; 1 * 2 / 4 = 0.5 rounds up.
        #expect(SinkVolume.channels(4, 3, 1).scaled(toMax: 2) == .channels(2, 2, 1))
        #expect(SinkVolume.channels(70000, 35000).scaled(toMax: 65535) == .channels(65535, 32768))
    }

    @Test("scaling a silent sink sets every channel, as there is no balance left to keep")
    func scaledSilence() {
        #expect(SinkVolume.channels(0, 0).scaled(toMax: 100) == .channels(100, 100))
    }

    @Test("scaling does not overflow for large volumes")
    func scaledLarge() {
        #expect(SinkVolume.channels(UInt32.max, UInt32.max / 2).scaled(toMax: Raw.full) == .channels(Raw.full, 32768))
    }

    @Test("is close when every channel is within the tolerance, either way")
    func isClose() {
        let held = SinkVolume.channels(30000, 20000)
        #expect(held.isClose(to: held, tolerance: 0))
        #expect(SinkVolume.channels(30008, 19992).isClose(to: held, tolerance: 8))
        #expect(!SinkVolume.channels(30009, 20000).isClose(to: held, tolerance: 8))
        #expect(!SinkVolume.channels(30000, 19991).isClose(to: held, tolerance: 8))
    }

    @Test("is never close to a volume with another channel count")
    func isCloseChannelCount() {
        #expect(!SinkVolume.channels(30000).isClose(to: .channels(30000, 30000), tolerance: 100))
        #expect(!SinkVolume.channels(30000, 30000).isClose(to: .channels(30000), tolerance: 100))
    }
}
