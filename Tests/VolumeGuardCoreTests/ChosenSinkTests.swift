import Testing

@testable import VolumeGuardCore

@Suite("Guarding a chosen sink")
struct ChosenSinkTests {
    static let speakers = SimulatedSink(index: 1, name: Name.speakers, [40000, 40000])
    static let headset = SimulatedSink(index: 2, name: Name.headset, [30000, 20000])
    static let chooseHeadset = GuardCore.Configuration(selection: .matching("bluez_output.*"))

    @Test("a pattern picks the matching sink, not the default one")
    func picksMatching() {
        let h = Harness.guarding([Self.speakers, Self.headset], default: Name.speakers, configuration: Self.chooseHeadset)
        #expect(h.core.guarded?.name == Name.headset)
        #expect(h.core.state == .guarding)
        #expect(!h.log.contains(.readDefaultSink))
    }

    @Test("the other sinks' keys are left alone")
    func othersLeftAlone() {
        var h = Harness.guarding([Self.speakers, Self.headset], default: Name.speakers, configuration: Self.chooseHeadset)
        h.clearLog()
        h.userMoves(Name.speakers, by: 3277)
        h.settle()
        #expect(h.presses.isEmpty)
        #expect(h.sink(Name.speakers).volume == .channels(43277, 43277))
        h.userMoves(Name.headset, by: 3277)
        h.settle()
        #expect(h.presses.map(\.direction) == [.up])
        #expect(h.sink(Name.headset).volume == .channels(30000, 20000))
    }

    @Test("a default-sink switch does not move a chosen sink")
    func ignoresDefaultSwitch() {
        var h = Harness.guarding([Self.speakers, Self.headset], default: Name.speakers, configuration: Self.chooseHeadset)
        h.setDefault(Name.headset)
        h.setDefault(Name.speakers)
        h.settle()
        #expect(h.core.guarded?.name == Name.headset)
        #expect(h.volumeWrites.isEmpty)
    }

    @Test("an absent chosen sink is waited for, and guarded when it appears")
    func waitsForSink() {
        var h = Harness.guarding([Self.speakers], default: Name.speakers, configuration: Self.chooseHeadset)
        #expect(h.core.state == .noSink)
        #expect(h.core.guarded == nil)
        h.plug(SimulatedSink(index: 7, name: "alsa_output.usb-dac", [10000, 10000]))
        h.settle()
        #expect(h.core.state == .noSink)
        h.plug(SimulatedSink(index: 8, name: Name.headset, [30000, 20000]))
        h.settle()
        #expect(h.core.guarded?.name == Name.headset)
        #expect(h.core.state == .guarding)
    }

    @Test("a chosen sink that goes away and comes back is guarded again, keeping its original level")
    func comesBack() {
        let loud = SimulatedSink(index: 2, name: Name.headset, [Raw.full, Raw.full])
        var h = Harness.guarding([Self.speakers, loud], default: Name.speakers, configuration: Self.chooseHeadset)
        #expect(h.sink(Name.headset).volume == .channels(65535, 65535))
        h.unplug(Name.headset, newDefault: Name.speakers)
        h.settle()
        #expect(h.core.state == .noSink)
        #expect(h.reports.contains(.sinkLost(sink: Name.headset)))

        // The headset remembers the held level; what is given back in the end is the user's own.
        h.plug(SimulatedSink(index: 9, name: Name.headset, [65535, 65535]))
        h.settle()
        #expect(h.core.guarded?.index == 9)
        #expect(h.core.guarded?.original.volume == .channels(Raw.full, Raw.full))
        h.feed(.shutdown)
        h.settle()
        #expect(h.sink(Name.headset).volume == .channels(Raw.full, Raw.full))
    }
}

@Suite("Sinks that come and go while following the default")
struct SinkLifeTests {
    @Test("an unplugged default sink that comes back as the default keeps its original level")
    func defaultComesBack() {
        let speakers = SimulatedSink(index: 1, name: Name.speakers, [Raw.full, Raw.full])
        let hdmi = SimulatedSink(index: 2, name: Name.hdmi, [20000, 20000])
        var h = Harness.guarding([speakers, hdmi], default: Name.speakers)
        h.unplug(Name.speakers, newDefault: Name.hdmi)
        h.settle()
        #expect(h.core.guarded?.name == Name.hdmi)

        h.plug(SimulatedSink(index: 5, name: Name.speakers, [65535, 65535]))
        h.setDefault(Name.speakers)
        h.settle()
        #expect(h.core.guarded?.index == 5)
        #expect(h.core.guarded?.original.volume == .channels(Raw.full, Raw.full))
        #expect(h.sink(Name.hdmi).volume == .channels(20000, 20000))
    }

    @Test("a default sink named before it exists is guarded when it appears, with no server change")
    func defaultAppearsLater() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.hdmi, [20000, 20000])], default: Name.speakers)
        #expect(h.core.state == .noSink)
        h.plug(SimulatedSink(index: 6, name: Name.speakers, [30000, 30000]))
        h.settle()
        #expect(h.core.guarded?.name == Name.speakers)
        #expect(h.core.state == .guarding)
    }

    @Test("another sink appearing while the default is missing is not guarded")
    func otherSinkAppears() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.hdmi, [20000, 20000])], default: Name.speakers)
        h.plug(SimulatedSink(index: 6, name: Name.headset, [30000, 30000]))
        h.settle()
        #expect(h.core.state == .noSink)
        #expect(h.volumeWrites.isEmpty)
    }

    @Test("with no default sink and none listed the guard keeps asking, backing off to a slow pace, and never reconnects")
    func recheckForever() {
        var h = Harness([], default: nil)
        h.feed(.connected)
        h.wait(.seconds(60))
        let delays = h.log.compactMap { if case .wakeUp(let after) = $0 { after } else { nil } }
        #expect(delays == delays.sorted())
        #expect(delays.last == SinkFollower.slowPace)
        #expect(h.log.filter { $0 == .readDefaultSink }.count > 30, "still asking a minute on")
        #expect(!h.log.contains(.reconnect))
        #expect(h.core.state == .noSink)
        h.plug(SimulatedSink(index: 3, name: Name.hdmi, [20000, 20000]))
        h.setDefault(Name.hdmi)
        h.settle()
        #expect(h.core.guarded?.name == Name.hdmi)
    }

    @Test("a default chosen without a server change (pipewire-pulse after a restart) is found by asking again")
    func defaultChosenSilently() {
        var h = Harness(
            [SimulatedSink(index: 1, name: Name.hdmi, [20000, 20000])], default: nil
        )
        h.feed(.connected)
        h.step()  // the first answer: no default yet
        h.defaultSink = Name.hdmi  // chosen, with no event
        h.wait(.seconds(1))
        #expect(h.core.guarded?.name == Name.hdmi)
    }

    @Test("when sinks appear but no default does, the guard asks for a fresh connection, which is told the default")
    func reconnectsForDefault() {
        var h = Harness([], default: Name.hdmi)
        h.blind = true
        h.feed(.connected)
        h.step()
        h.plug(SimulatedSink(index: 3, name: Name.hdmi, [20000, 20000]))
        h.wait(.seconds(2))
        #expect(h.log.filter { $0 == .reconnect }.count == 1)
        #expect(h.core.guarded?.name == Name.hdmi)
    }

    @Test("a blind connection (sinks already there, no default three times, no sink added) is dropped for a fresh one")
    func blindConnection() {
        var h = Harness([SimulatedSink(index: 1, name: Name.hdmi, [20000, 20000])], default: Name.hdmi)
        h.blind = true
        h.feed(.connected)
        h.wait(.seconds(2))
        let asked = h.log.prefix { $0 != .reconnect }.filter { $0 == .readDefaultSink }.count
        #expect(asked == SinkFollower.reconnectAfter + 1, "the first ask and three rechecks")
        #expect(h.log.filter { $0 == .reconnect }.count == 1)
        #expect(h.core.guarded?.name == Name.hdmi)
        #expect(h.core.state == .guarding)
    }

    @Test("a server that has sinks but never a default is reconnected to at a slow pace, not in a loop")
    func neverADefault() {
        var h = Harness([SimulatedSink(index: 1, name: Name.hdmi, [20000, 20000])], default: nil)
        h.feed(.connected)
        h.wait(.seconds(60))
        let reconnects = h.log.filter { $0 == .reconnect }.count
        #expect(reconnects >= 10 && reconnects <= 30, "\(reconnects) reconnects in a minute")
        #expect(h.core.state == .noSink)
    }

    @Test("with no sink left the guard says so, and guards the next default")
    func noSinkLeft() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000, 30000])], default: Name.speakers)
        h.unplug(Name.speakers, newDefault: nil)
        h.settle()
        #expect(h.core.state == .noSink)
        h.plug(SimulatedSink(index: 4, name: Name.hdmi, [20000, 20000]))
        h.setDefault(Name.hdmi)
        h.settle()
        #expect(h.core.guarded?.name == Name.hdmi)
        #expect(h.core.state == .guarding)
    }
}

@Suite("Choosing sinks by pattern")
struct SinkSelectionTests {
    @Test(
        "patterns match like a shell's",
        arguments: [
            ("bluez_output.*", "bluez_output.00_1B_66.1", true),
            ("bluez_output.*", "alsa_output.pci", false),
            ("guard_?", "guard_a", true),
            ("guard_a", "guard_a", true),
            ("guard_a", "guard_ab", false),
        ])
    func matching(pattern: String, name: String, matches: Bool) {
        #expect(SinkSelection.matching(pattern).admits(name) == matches)
    }

    @Test("following the default admits no sink by name")
    func defaultAdmitsNone() {
        #expect(!SinkSelection.defaultSink.admits("anything"))
    }
}
