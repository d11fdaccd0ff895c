import Testing
import VolumeGuardCore

@Suite("Own writes are not presses")
struct EchoTests {
    static let mono = SimulatedSink(index: 1, name: Name.speakers, [30000])

    @Test("the guard's reset, its acknowledgement, read-back and echo event publish nothing")
    func ownReset() {
        var h = Harness.guarding([Self.mono])
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        while h.volumeWrites.isEmpty, h.step() {}
        #expect(h.presses.count == 1)
        // PulseAudio's order: the acknowledgement, then the change event the reset caused.
        guard case .written = h.inbox.first else {
            Issue.record("expected the reset's acknowledgement first, got \(h.inbox)")
            return
        }
        #expect(h.inbox.dropFirst() == [.sinkChanged(index: 1)])
        h.clearLog()
        h.settle()
        #expect(h.reads.count >= 1, "the reset is verified by reading back")
        #expect(h.delivered.contains(.sinkChanged(index: 1)))
        #expect(h.log.allSatisfy { if case .readSink = $0 { true } else { false } }, "no press among them")
    }

    @Test("an echo event that arrives before the deferred acknowledgement is no press")
    func echoBeforeAck() {
        var h = Harness.guarding([Self.mono])
        h.holdAcks = true
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        #expect(h.withheld.count == 1)
        #expect(h.delivered.last == .sinkChanged(index: 1))
        h.holdAcks = false
        h.deliverWithheldAcks()
        h.settle()
        #expect(h.presses.count == 1)
        #expect(h.volumeWrites.count == 1)
    }

    @Test("bringing a sink at 100 % down to the ceiling at start is no press")
    func clampAtStart() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [Raw.full, Raw.full])])
        #expect(h.volumeWrites.map(\.volume) == [.channels(65535, 65535)])
        #expect(h.sink(Name.speakers).volume == .channels(65535, 65535))
        #expect(h.presses.isEmpty)
        #expect(h.presses.isEmpty)
        h.touch(Name.speakers)
        h.settle()
        #expect(h.presses.isEmpty)
    }

    @Test("raising a silent sink to the floor at start is no press")
    func floorAtStart() {
        let h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [0, 20000])])
        #expect(h.sink(Name.speakers).volume == .channels(1, 20000))
        #expect(h.presses.isEmpty)
    }

    @Test("a real press that lands while a reset is in flight is counted exactly once")
    func pressDuringReset() {
        var h = Harness.guarding([Self.mono])
        h.holdAcks = true
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        #expect(h.presses.count == 1)
        #expect(h.sink(Name.speakers).volume == .channels(30000), "the reset was applied; its ack is on its way")
        // The person presses up again: the same value the reset just corrected.
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.holdAcks = false
        h.deliverWithheldAcks()
        h.settle()
        #expect(h.presses.map(\.direction) == [.up, .up])
        #expect(h.presses.map(\.count) == [1, 1], "counted from the written level, not from the corrected reading")
        #expect(h.counts.up == 2)
        #expect(h.sink(Name.speakers).volume == .channels(30000))
        h.touch(Name.speakers)
        h.settle()
        #expect(h.presses.count == 2)
    }

    @Test("a press down that lands while a reset is in flight keeps its own direction")
    func pressDownDuringReset() {
        var h = Harness.guarding([Self.mono])
        h.holdAcks = true
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        h.userSets(Name.speakers, raw: 30000 - Raw.step5)
        h.holdAcks = false
        h.deliverWithheldAcks()
        h.settle()
        #expect(h.presses.map(\.direction) == [.up, .down])
        #expect(h.sink(Name.speakers).volume == .channels(30000))
    }

    @Test("a press made before the reset's acknowledgement is read, PulseAudio order")
    func pressBetweenAckAndRead() {
        var h = Harness.guarding([Self.mono])
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        while h.volumeWrites.isEmpty, h.step() {}
        // The reset is applied and acknowledged; the person presses before the core hears of it.
        h.userSets(Name.speakers, raw: 30000 - Raw.step5)
        h.settle()
        #expect(h.presses.map(\.direction) == [.up, .down])
        #expect(h.sink(Name.speakers).volume == .channels(30000))
    }

    @Test("a mute press that lands while a volume reset is in flight is counted")
    func muteDuringReset() {
        var h = Harness.guarding([Self.mono])
        h.holdAcks = true
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        h.userToggles(muteOf: Name.speakers)
        h.holdAcks = false
        h.deliverWithheldAcks()
        h.wait(.seconds(1))
        #expect(h.presses.map(\.direction) == [.up, .mute])
        #expect(h.sink(Name.speakers).level == SinkLevel(volume: .channels(30000), muted: false))
    }

    @Test("a capped up key at the ceiling during a reset is a press, not a rendering of the held level")
    func cappedPressDuringReset() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [Raw.full])])
        h.holdAcks = true
        h.userSets(Name.speakers, raw: Raw.full)
        h.settle()
        h.userSets(Name.speakers, raw: Raw.full)
        h.holdAcks = false
        h.deliverWithheldAcks()
        h.settle()
        #expect(h.presses.map(\.direction) == [.up, .up])
        #expect(h.core.guarded?.heldAsRead.map { HeldLevel.admits($0) } ?? true, "the pressed level was taken for a rendering of the held one")
        #expect(h.sink(Name.speakers).volume == .channels(65535))
    }

    @Test("a capped down key at the floor during a reset is a press, not a rendering of the held level")
    func cappedDownDuringReset() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [0])])
        h.holdAcks = true
        h.userSets(Name.speakers, raw: 0)
        h.settle()
        h.userSets(Name.speakers, raw: 0)
        h.holdAcks = false
        h.deliverWithheldAcks()
        h.settle()
        #expect(h.presses.map(\.direction) == [.down, .down])
        #expect(h.sink(Name.speakers).volume == .channels(1))
    }

    // MARK: pipewire-pulse

    @Test("a reset the server acknowledged but skipped is issued again, and is no press")
    func skippedResetRetried() {
        var h = Harness.guarding([Self.mono])
        h.skipWrites = 1
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        #expect(h.presses.count == 1)
        #expect(h.reports.contains(.resetRetried(sink: Name.speakers, attempt: 1)))
        #expect(h.volumeWrites.map(\.volume) == [.channels(30000), .channels(30000)])
        #expect(h.sink(Name.speakers).volume == .channels(30000))
    }

    @Test("a skipped mute reset is issued again, and is no press")
    func skippedMuteRetried() {
        var h = Harness.guarding([Self.mono])
        h.skipWrites = 1
        h.userToggles(muteOf: Name.speakers)
        h.wait(.seconds(1))
        #expect(h.presses.map(\.direction) == [.mute])
        #expect(h.muteWrites.map(\.muted) == [false, false])
        #expect(h.sink(Name.speakers).muted == false)
    }

    @Test("a reset that never takes is given up after the configured retries")
    func resetAbandoned() {
        var h = Harness.guarding([Self.mono], configuration: .init(resetRetries: 2))
        h.skipWrites = 100
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        #expect(
            h.reports.filter { if case .guarding = $0 { false } else { true } } == [
                .resetRetried(sink: Name.speakers, attempt: 1),
                .resetRetried(sink: Name.speakers, attempt: 2),
                .resetAbandoned(sink: Name.speakers),
            ])
        #expect(h.volumeWrites.count == 3)
        #expect(h.presses.count == 1)
        #expect(h.sink(Name.speakers).volume == .channels(30000 + Raw.step5))
    }

    @Test("after giving up, the next press counts from where the sink was left and is reset again")
    func afterAbandon() {
        var h = Harness.guarding([Self.mono], configuration: .init(resetRetries: 1))
        h.skipWrites = 2
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        #expect(h.reports.contains(.resetAbandoned(sink: Name.speakers)))
        h.userSets(Name.speakers, raw: 30000 + 2 * Raw.step5)
        h.settle()
        #expect(h.presses.map(\.direction) == [.up, .up])
        #expect(h.presses.map(\.count) == [1, 1])
        #expect(h.sink(Name.speakers).volume == .channels(30000))
    }

    @Test("after giving up, the next sink event tries the reset again, without a press")
    func abandonedRetriedOnNextEvent() {
        var h = Harness.guarding([Self.mono], configuration: .init(resetRetries: 1))
        h.skipWrites = 2
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        #expect(h.reports.contains(.resetAbandoned(sink: Name.speakers)))
        h.touch(Name.speakers)
        h.settle()
        #expect(h.presses.count == 1)
        #expect(h.sink(Name.speakers).volume == .channels(30000))
    }

    @Test("the server's float rendering of the held level is taken as the reset's echo")
    func floatReadBackAdopted() {
        var h = Harness.guarding([Self.mono])
        h.rendering = [30000: 30003]
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        #expect(h.presses.count == 1)
        #expect(h.volumeWrites.count == 2, "the held level is written once more to confirm the rendering, then not chased")
        #expect(h.core.guarded?.heldAsRead == .channels(30003))
        #expect(h.sink(Name.speakers).volume == .channels(30003))
    }

    @Test("a press landing near the held level while a reset is skipped is not taken for the rendering")
    func nearPressDuringSkippedReset() {
        var h = Harness.guarding([Self.mono])
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.step()
        h.skipWrites = 1
        h.step()
        h.userSets(Name.speakers, raw: 29998)
        h.settle()
        #expect(h.core.guarded?.heldAsRead == .channels(30000))
        #expect(h.sink(Name.speakers).volume == .channels(30000))
    }

    @Test("later readings equal to the adopted rendering are not presses")
    func floatReadBackLater() {
        var h = Harness.guarding([Self.mono])
        h.rendering = [30000: 30003]
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        h.touch(Name.speakers)
        h.settle()
        #expect(h.presses.count == 1)
        #expect(h.volumeWrites.count == 2)
        // The next press is counted from the rendering, and the exact held level is written again.
        h.userSets(Name.speakers, raw: 30003 - Raw.step5)
        h.settle()
        #expect(h.presses.map(\.direction) == [.up, .down])
        #expect(h.volumeWrites.map(\.volume) == [.channels(30000), .channels(30000), .channels(30000)])
        #expect(h.presses.count == 2)
    }

    @Test("a rendering is an echo only within the configured tolerance", arguments: [(3, true), (2, false)] as [(UInt32, Bool)])
    func renderingTolerance(tolerance: UInt32, adopted: Bool) {
        var h = Harness.guarding([Self.mono], configuration: .init(echoTolerance: tolerance, resetRetries: 0))
        h.rendering = [30000: 30003]
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.settle()
        #expect((h.core.guarded?.heldAsRead == .channels(30003)) == adopted)
    }
}
