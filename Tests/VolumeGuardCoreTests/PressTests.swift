import Testing
import VolumeGuardCore

@Suite("Press detection")
struct PressTests {
    static let mono = SimulatedSink(index: 1, name: Name.speakers, [30000])

    @Test("turning the guarded sink up is one press up, named after the sink")
    func up() {
        var h = Harness.guarding([Self.mono])
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        #expect(h.presses == [Press(seq: 1, direction: .up, count: 1, sink: Name.speakers)])
        #expect(h.counts.up == 1)
    }

    @Test("turning the guarded sink down is one press down")
    func down() {
        var h = Harness.guarding([Self.mono])
        h.userSets(Name.speakers, raw: 30000 - Raw.step5)
        h.settle()
        #expect(h.presses == [Press(seq: 1, direction: .down, count: 1, sink: Name.speakers)])
        #expect(h.counts.down == 1)
    }

    @Test("after a press the guard puts the volume straight back to the held level")
    func resetsToHeld() {
        var h = Harness.guarding([Self.mono])
        h.clearLog()
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        #expect(h.volumeWrites.map(\.sink) == [1])
        #expect(h.volumeWrites.map(\.volume) == [.channels(30000)])
        #expect(h.muteWrites.isEmpty)
        #expect(h.sink(Name.speakers).volume == .channels(30000))
    }

    @Test("the reset restores every channel, keeping the sink's balance")
    func resetKeepsBalance() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000, 20000])])
        h.clearLog()
        h.userSets(Name.speakers, [33277, 22185])
        h.settle()
        #expect(h.presses.map(\.direction) == [.up])
        #expect(h.volumeWrites.map(\.volume) == [.channels(30000, 20000)])
        #expect(h.sink(Name.speakers).volume == .channels(30000, 20000))
    }

    @Test("a press is measured on the loudest channel")
    func loudestChannel() {
        var h = Harness.guarding(
            [SimulatedSink(index: 1, name: Name.speakers, [20000, 40000])],
            configuration: .init(keyStep: 2000)
        )
        h.userSets(Name.speakers, [21000, 44000])
        h.settle()
        #expect(h.presses.map(\.count) == [2])
    }

    @Test("toggling mute is a mute press, and the guard unmutes the sink again")
    func mute() {
        var h = Harness.guarding([Self.mono])
        h.clearLog()
        h.userToggles(muteOf: Name.speakers)
        h.settle()
        #expect(h.presses.isEmpty, "held back: the volume half of a desktop's key press may yet come")
        h.wait(.seconds(1))
        #expect(h.presses == [Press(seq: 1, direction: .mute, count: 1, sink: Name.speakers)])
        #expect(h.muteWrites.map(\.sink) == [1])
        #expect(h.muteWrites.map(\.muted) == [false])
        #expect(h.volumeWrites.isEmpty)
        #expect(h.sink(Name.speakers).muted == false)
        #expect(h.counts.mute == 1)
    }

    @Test("a mute press held back when the guard lets the sink go is reported then")
    func heldMuteOnPause() {
        var h = Harness.guarding([Self.mono])
        h.userToggles(muteOf: Name.speakers)
        h.settle()
        h.clearLog()
        h.feed(.pause)
        #expect(h.presses.map(\.direction) == [.mute], "nothing can make it half of a volume press any more")
    }

    @Test("a sink that was muted is held muted: unmuting it is the mute press")
    func heldMuted() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000], muted: true)])
        h.userToggles(muteOf: Name.speakers)
        h.wait(.seconds(1))
        #expect(h.presses.map(\.direction) == [.mute])
        #expect(h.muteWrites.map(\.muted) == [true])
        #expect(h.sink(Name.speakers).muted)
    }

    @Test("a down press that also mutes (GNOME at 0 %) is one press down, and both are put back")
    func downToZeroMutes() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [3000])])
        h.userSets(Name.speakers, raw: 0, muted: true)
        h.settle()
        #expect(h.presses == [Press(seq: 1, direction: .down, count: 1, sink: Name.speakers)])
        #expect(h.counts.mute == 0)
        #expect(h.sink(Name.speakers).level == SinkLevel(volume: .channels(3000), muted: false))
    }

    @Test("an up press that also unmutes a muted sink is one press up")
    func upUnmutes() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000], muted: true)])
        h.userSets(Name.speakers, raw: 30000 + Raw.step6, muted: false)
        h.settle()
        #expect(h.presses.map(\.direction) == [.up])
        #expect(h.sink(Name.speakers).level == SinkLevel(volume: .channels(30000), muted: true))
    }

    @Test("a change on another sink is ignored")
    func otherSink() {
        var h = Harness.guarding(
            [Self.mono, SimulatedSink(index: 2, name: Name.hdmi, [40000])], default: Name.speakers
        )
        h.clearLog()
        h.userSets(Name.hdmi, raw: 10000)
        h.userToggles(muteOf: Name.hdmi)
        h.settle()
        #expect(h.delivered == [.sinkChanged(index: 2), .sinkChanged(index: 2)])
        #expect(h.log.isEmpty)
        #expect(h.sink(Name.hdmi).level == SinkLevel(volume: .channels(10000), muted: true))
    }

    @Test("a sink change that moved neither volume nor mute is not a press")
    func stateChangeNoPress() {
        var h = Harness.guarding([Self.mono])
        h.clearLog()
        h.touch(Name.speakers)
        h.settle()
        #expect(h.reads.count == 1)
        #expect(h.presses.isEmpty)
        #expect(h.volumeWrites.isEmpty)
        #expect(h.muteWrites.isEmpty)
    }

    @Test("a change of balance alone is no press, but is put back")
    func balanceOnly() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000, 30000])])
        h.userSets(Name.speakers, [30000, 25000])
        h.settle()
        #expect(h.presses.isEmpty)
        #expect(h.sink(Name.speakers).volume == .channels(30000, 30000))
    }

    @Test("at the ceiling an up key that can only reach 100 % is still a press up")
    func upAtCeiling() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [Raw.full, Raw.full])])
        #expect(h.sink(Name.speakers).volume == .channels(65535, 65535))
        h.userSets(Name.speakers, raw: Raw.full)
        h.settle()
        #expect(h.presses == [Press(seq: 1, direction: .up, count: 1, sink: Name.speakers)])
        #expect(h.sink(Name.speakers).volume == .channels(65535, 65535))
    }

    @Test("at the floor a down key that can only reach 0 % is still a press down")
    func downAtFloor() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [0, 0])])
        #expect(h.sink(Name.speakers).volume == .channels(1, 1))
        h.userSets(Name.speakers, raw: 0)
        h.settle()
        #expect(h.presses == [Press(seq: 1, direction: .down, count: 1, sink: Name.speakers)])
        #expect(h.sink(Name.speakers).volume == .channels(1, 1))
    }

    @Test("seq rises by one per press")
    func seqRises() {
        var h = Harness.guarding([Self.mono])
        h.userMoves(Name.speakers, by: Int64(Raw.step5))
        h.settle()
        h.userMoves(Name.speakers, by: -Int64(Raw.step5))
        h.settle()
        h.userToggles(muteOf: Name.speakers)
        h.settle()
        h.userMoves(Name.speakers, by: 3 * Int64(Raw.step5))
        h.settle()
        #expect(h.presses.map(\.seq) == [1, 2, 3, 4])
        #expect(h.presses.map(\.direction) == [.up, .down, .mute, .up])
        #expect(h.presses.last?.seq == 4)
    }

    @Test("press counts per direction add up the steps of every press")
    func countsSum() {
        var h = Harness.guarding([Self.mono], configuration: .init(keyStep: Raw.step5))
        for delta in [1, 3, -2, 1] as [Int64] {
            h.userMoves(Name.speakers, by: delta * Int64(Raw.step5))
            h.settle()
        }
        h.userToggles(muteOf: Name.speakers)
        h.wait(.seconds(1))
        #expect(h.presses.map(\.count) == [1, 3, 2, 1, 1])
        #expect(h.counts.up == 5)
        #expect(h.counts.down == 2)
        #expect(h.counts.mute == 1)
        #expect(h.counts[.up] == 5)
    }
}
