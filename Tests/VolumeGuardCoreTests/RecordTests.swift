import GuardProtocol
import Testing
import VolumeGuardCore

@Suite("The record of original levels")
struct RecordTests {
    static let full = SimulatedSink(index: 1, name: Name.speakers, [Raw.full, Raw.full])
    static let fullLevel = SinkLevel(volume: .channels(Raw.full, Raw.full), muted: false)

    @Test("The original is recorded before the first write to a sink, and the record emptied once it is given back")
    func recordedBeforeWriting() {
        var h = Harness([Self.full], default: Name.speakers)
        h.feed(.connected)
        h.settle()
        let record = h.log.firstIndex(of: .recordOriginals([Name.speakers: Self.fullLevel]))
        let write = h.log.firstIndex { if case .setVolume = $0 { true } else { false } }
        #expect(record != nil && write != nil && record! < write!, "\(h.log)")
        #expect(h.records == [[Name.speakers: Self.fullLevel]])

        h.feed(.shutdown)
        h.settle()
        #expect(h.records.last == [:])
        #expect(h.core.custody == [:])
        #expect(h.sink(Name.speakers).level == Self.fullLevel)
    }

    @Test("An exit whose restore the server never acknowledged, the connection lost, keeps the record for the next start")
    func lostDuringTheRestore() {
        var h = Harness.guarding([Self.full])
        h.holdAcks = true
        h.feed(.shutdown)
        h.disconnect()
        #expect(h.core.allGivenBack, "nothing more can be done on this connection")
        #expect(h.core.custody == [Name.speakers: Self.fullLevel])
        #expect(h.records.last != [:])
    }

    @Test("A resume before the paused connection's reading keeps the originals it had not given back yet")
    func resumedBeforeGivingBack() {
        var h = Harness([Self.full], default: Name.speakers, remembered: [Name.speakers: Self.fullLevel])
        h.sinks[0].volume = .channels(Raw.full - 1, Raw.full - 1)
        h.feed(.pause)
        h.feed(.connected)
        h.feed(.resume)
        h.settle()
        #expect(h.core.guarded?.original == Self.fullLevel)
        #expect(h.records.allSatisfy { $0[Name.speakers] == Self.fullLevel })
        h.feed(.shutdown)
        h.settle()
        #expect(h.sink(Name.speakers).level == Self.fullLevel)
    }

    @Test("Presses do not rewrite the record; a switch of sinks records both until the old one is back")
    func onlyChangesAreRecorded() {
        let other = SimulatedSink(index: 2, name: Name.headset, [30000, 30000])
        var h = Harness.guarding([Self.full, other])
        h.clearLog()
        h.userMoves(Name.speakers, by: -3277)
        h.settle()
        #expect(h.records.isEmpty)
        h.setDefault(Name.headset)
        h.settle()
        let headset = SinkLevel(volume: .channels(30000, 30000), muted: false)
        #expect(h.records == [[Name.speakers: Self.fullLevel, Name.headset: headset], [Name.headset: headset]])
    }

    @Test("A previous run's record gives the sink its level, as read back at the end, and says so")
    func previousRun() {
        // The previous run held the sink at 65535 and was killed.
        let held = SimulatedSink(index: 1, name: Name.speakers, [65535, 65535])
        var h = Harness([held], default: Name.speakers, remembered: [Name.speakers: Self.fullLevel])
        #expect(h.core.custody == [Name.speakers: Self.fullLevel])
        h.feed(.connected)
        h.settle()
        #expect(h.reports.contains(.recovered(sink: Name.speakers, to: Self.fullLevel)))
        #expect(h.core.guarded?.original == Self.fullLevel)
        #expect(h.records.isEmpty, "the record on disk already says so")
        h.feed(.shutdown)
        h.settle()
        #expect(h.sink(Name.speakers).level == Self.fullLevel)
        #expect(h.records == [[:]])
    }

    @Test("Paused at connection, recorded sinks that are present get their levels back at once")
    func pausedGivesBack() {
        let held = SimulatedSink(index: 1, name: Name.speakers, [65535, 65535])
        var h = Harness([held], default: Name.speakers, remembered: [Name.speakers: Self.fullLevel, Name.hdmi: Self.fullLevel])
        h.feed(.pause)
        h.feed(.connected)
        h.settle()
        #expect(h.core.state == .paused)
        #expect(h.sink(Name.speakers).level == Self.fullLevel)
        #expect(h.reports.contains(.recovered(sink: Name.speakers, to: Self.fullLevel)))
        #expect(h.core.custody == [Name.hdmi: Self.fullLevel], "an absent sink stays recorded")
        #expect(h.records.last == [Name.hdmi: Self.fullLevel])
        h.feed(.resume)
        h.settle()
        #expect(h.core.guarded?.original == Self.fullLevel)
    }

    @Test("A clean exit ends the record even for sinks that are gone")
    func shutdownForgetsAbsent() {
        var h = Harness.guarding([Self.full], default: Name.speakers)
        h.unplug(Name.speakers, newDefault: nil)
        h.settle()
        #expect(h.core.custody == [Name.speakers: Self.fullLevel])
        h.feed(.shutdown)
        h.settle()
        #expect(h.core.custody == [:])
        #expect(h.records.last == [:])
    }
}

@Suite("Reconfiguring at run time")
struct ReconfigureTests {
    static let half = SimulatedSink(index: 1, name: Name.speakers, [32768, 32768])
    static let full = SimulatedSink(index: 2, name: Name.headset, [Raw.full, Raw.full])

    @Test("A new selection gives the sink back and holds the one it picks")
    func selection() {
        var h = Harness.guarding([Self.half, Self.full], default: Name.speakers)
        h.feed(.reconfigure(.init(selection: .matching("bluez_output.*"))))
        h.settle()
        #expect(h.core.guarded?.name == Name.headset)
        #expect(h.sink(Name.speakers).level == Self.half.level)
        #expect(h.sink(Name.headset).volume == .channels(65535, 65535))
    }

    @Test("A new selection that still picks the held sink keeps holding it, original and all")
    func selectionKeeps() {
        var h = Harness.guarding([Self.half, Self.full], default: Name.headset)
        h.clearLog()
        h.feed(.reconfigure(.init(selection: .matching("bluez_output.*"))))
        h.settle()
        #expect(h.core.guarded?.name == Name.headset)
        #expect(h.core.guarded?.original == Self.full.level)
        #expect(h.volumeWrites.isEmpty)
        #expect(h.reports.isEmpty)
    }

    @Test("A new clamp margin moves the held level at once, and the original stays the user's")
    func margin() {
        var h = Harness.guarding([Self.full])
        h.feed(.reconfigure(.init(clampMargin: 655)))
        h.settle()
        // Named outside #expect: Swift 6.2.3 (the arm64 build's) infers no type for `.channels(65536 - 655, ...)`
        // there, and fails with "binary operator '==' cannot be applied".
        let held = SinkVolume.channels(65536 - 655, 65536 - 655)
        #expect(h.sink(Name.headset).volume == held)
        #expect(h.presses.isEmpty)
        h.userMoves(Name.headset, by: 3277)
        h.settle()
        #expect(h.presses.map(\.direction) == [.up])
        #expect(h.sink(Name.headset).volume == held)
        h.feed(.shutdown)
        h.settle()
        #expect(h.sink(Name.headset).level == Self.full.level)
    }

    @Test("Without mute guarding, mute passes through, is no press, and is kept at the end")
    func muteUnguarded() {
        var h = Harness.guarding([Self.half], configuration: .init(guardsMute: false))
        h.userToggles(muteOf: Name.speakers)
        h.settle()
        #expect(h.presses.isEmpty)
        #expect(h.sink(Name.speakers).muted)
        h.userMoves(Name.speakers, by: 3277)
        h.settle()
        #expect(h.presses.map(\.direction) == [.up])
        #expect(h.sink(Name.speakers).level == SinkLevel(volume: .channels(32768, 32768), muted: true))
        h.feed(.shutdown)
        h.settle()
        #expect(h.sink(Name.speakers).muted)

        var guarded = Harness.guarding([Self.half])
        guarded.feed(.reconfigure(.init(guardsMute: false)))
        guarded.userToggles(muteOf: Name.speakers)
        guarded.settle()
        #expect(guarded.presses.isEmpty)
        #expect(guarded.sink(Name.speakers).muted)
    }

    @Test("A configured step counts at once; paused, a new configuration waits for the resume")
    func stepAndPause() {
        var h = Harness.guarding([Self.half])
        h.feed(.reconfigure(.init(keyStep: 3277)))
        h.userMoves(Name.speakers, by: 3 * 3277)
        h.settle()
        #expect(h.presses.map(\.count) == [3])
        h.feed(.pause)
        h.settle()
        h.clearLog()
        h.feed(.reconfigure(.init(selection: .matching("bluez_output.*"), keyStep: 3277)))
        h.settle()
        #expect(h.log.isEmpty)
        #expect(h.core.state == .paused)
    }
}
