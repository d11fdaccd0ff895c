import Testing
import VolumeGuardCore

@Suite("Following the default sink")
struct DefaultSinkTests {
    /// At 100 %: held one unit under, so its original differs from what the server shows.
    static let speakers = SimulatedSink(index: 1, name: Name.speakers, [Raw.full, Raw.full])
    /// Amplified and muted.
    static let headset = SimulatedSink(index: 2, name: Name.headset, [70000, 35000], muted: true)
    static let hdmi = SimulatedSink(index: 3, name: Name.hdmi, [20000, 20000])

    static func guardingSpeakers() -> Harness {
        Harness.guarding([speakers, headset, hdmi], default: Name.speakers)
    }

    @Test("the default sink is read by name and held")
    func readsDefaultByName() {
        let h = Self.guardingSpeakers()
        #expect(h.log.first == .readDefaultSink)
        #expect(h.reads.first?.query == .name(Name.speakers))
        #expect(h.core.guarded?.name == Name.speakers)
        #expect(h.core.guarded?.index == 1)
        #expect(h.core.state == .guarding)
    }

    @Test("switching the default sink gives the old sink its original volume and mute back")
    func switchGivesOldBack() {
        var h = Self.guardingSpeakers()
        h.clearLog()
        h.setDefault(Name.headset)
        h.settle()
        let original = SinkLevel(volume: .channels(Raw.full, Raw.full), muted: false)
        #expect(h.volumeWrites.first?.sink == 1)
        #expect(h.volumeWrites.first?.volume == original.volume)
        #expect(h.muteWrites.first?.sink == 1)
        #expect(h.muteWrites.first?.muted == false)
        #expect(h.reports.contains(.givenBack(sink: Name.speakers, to: original)))
        #expect(h.sink(Name.speakers).level == original)
    }

    @Test("the new default sink is read by name and held at its own level")
    func switchHoldsNew() {
        var h = Self.guardingSpeakers()
        h.clearLog()
        h.setDefault(Name.headset)
        h.settle()
        #expect(h.reads.first?.query == .name(Name.headset))
        let original = SinkLevel(volume: .channels(70000, 35000), muted: true)
        #expect(h.core.guarded?.index == 2)
        #expect(h.core.guarded?.original == original)
        #expect(h.core.guarded?.held.volume == .channels(65535, 32768))
        #expect(h.reports.contains(.guarding(sink: Name.headset, original: original, held: .channels(65535, 32768))))
        #expect(h.volumeWrites.filter { $0.sink == 2 }.map(\.volume) == [.channels(65535, 32768)])
        #expect(h.muteWrites.filter { $0.sink == 2 }.isEmpty, "it stays muted, as it was")
        #expect(h.sink(Name.headset).level == SinkLevel(volume: .channels(65535, 32768), muted: true))
        #expect(h.presses.isEmpty)
    }

    @Test("after a switch, presses come from the new sink and the old sink is left alone")
    func afterSwitch() {
        var h = Self.guardingSpeakers()
        h.setDefault(Name.hdmi)
        h.settle()
        h.clearLog()
        h.userSets(Name.speakers, raw: 10000)
        h.settle()
        #expect(h.log.isEmpty)
        h.userSets(Name.hdmi, raw: 20000 + Raw.step5)
        h.settle()
        #expect(h.presses == [Press(seq: 1, direction: .up, count: 1, sink: Name.hdmi)])
        #expect(h.sink(Name.hdmi).volume == .channels(20000, 20000))
        #expect(h.sink(Name.speakers).volume == .channels(10000, 10000))
    }

    @Test("a reply to a read that was already answered is ignored")
    func staleTicketIgnored() {
        var h = Self.guardingSpeakers()
        guard let old = h.reads.first?.ticket else {
            Issue.record("no read")
            return
        }
        var moved = Self.speakers
        moved.volume = .channels(20000, 20000)
        #expect(h.feed(.sinkRead(old, moved.reading)).isEmpty)
        #expect(h.feed(.sinkRead(old, nil)).isEmpty)
        #expect(h.core.guarded?.name == Name.speakers)
        #expect(h.core.state == .guarding)
    }

    @Test("when the default changes twice quickly, the reading of the first is dropped and only the last is held")
    func switchDuringRead() {
        var h = Self.guardingSpeakers()
        h.defaultSink = Name.headset
        h.feed(.defaultSink(Name.headset))
        // The headset's reading is queued; the default changes again before it arrives.
        h.defaultSink = Name.hdmi
        h.feed(.defaultSink(Name.hdmi))
        h.settle()
        #expect(h.core.guarded?.name == Name.hdmi)
        #expect(h.volumeWrites.filter { $0.sink == 2 }.isEmpty)
        #expect(h.muteWrites.filter { $0.sink == 2 }.isEmpty)
        #expect(h.sink(Name.headset) == Self.headset)
        #expect(!h.reports.contains { if case .guarding(Name.headset, _, _) = $0 { true } else { false } })
    }

    @Test("a default-sink reply naming the guarded sink changes nothing")
    func sameDefault() {
        var h = Self.guardingSpeakers()
        h.clearLog()
        h.setDefault(Name.speakers)
        h.settle()
        #expect(h.log == [.readDefaultSink])
    }

    @Test("with no default sink there is nothing to hold")
    func noDefault() {
        var h = Harness([Self.speakers], default: nil)
        h.feed(.connected)
        h.settle()
        #expect(h.core.state == .noSink)
        #expect(h.core.guarded == nil)
        #expect(h.volumeWrites.isEmpty)
    }

    @Test("a default naming no existing sink means no sink")
    func defaultWithoutSink() {
        var h = Harness([Self.speakers], default: "@DEFAULT_SINK@")
        h.feed(.connected)
        h.settle()
        #expect(h.core.state == .noSink)
        #expect(h.core.guarded == nil)
    }

    @Test("a default sink that appears later is guarded")
    func defaultAppears() {
        var h = Harness([Self.speakers], default: nil)
        h.feed(.connected)
        h.settle()
        h.setDefault(Name.speakers)
        h.settle()
        #expect(h.core.state == .guarding)
        #expect(h.states == [.noSink, .guarding])
        #expect(h.sink(Name.speakers).volume == .channels(65535, 65535))
    }

    @Test("an unplugged guarded sink is reported lost and the new default is guarded")
    func unplugged() {
        var h = Self.guardingSpeakers()
        h.clearLog()
        h.unplug(Name.speakers, newDefault: Name.hdmi)
        h.settle()
        #expect(h.reports.first == .sinkLost(sink: Name.speakers))
        #expect(h.volumeWrites.filter { $0.sink == 1 }.isEmpty)
        #expect(h.states == [.noSink, .guarding])
        #expect(h.core.guarded?.name == Name.hdmi)
        h.userSets(Name.hdmi, raw: 20000 - Raw.step5)
        h.settle()
        #expect(h.presses.map(\.origin) == [.sink(Name.hdmi)])
    }

    @Test("a guarded sink that vanishes before it is read is reported lost, and the new default is guarded")
    func vanishesDuringRead() {
        var h = Self.guardingSpeakers()
        h.clearLog()
        h.touch(Name.speakers)
        h.sinks.removeAll { $0.name == Name.speakers }
        h.step()  // the change event: the core reads a sink that is gone
        h.inbox.append(.sinkRemoved(index: 1))
        h.setDefault(Name.hdmi)
        h.settle()
        #expect(h.reports.filter { $0 == .sinkLost(sink: Name.speakers) }.count == 1)
        #expect(h.volumeWrites.filter { $0.sink == 1 }.isEmpty)
        #expect(h.core.guarded?.name == Name.hdmi)
        #expect(h.core.state == .guarding)
        #expect(h.presses.isEmpty)
    }

    @Test("removing another sink changes nothing")
    func otherRemoved() {
        var h = Self.guardingSpeakers()
        h.clearLog()
        #expect(h.feed(.sinkRemoved(index: 3)).isEmpty)
        #expect(h.core.guarded?.name == Name.speakers)
    }
}
