import Testing
import VolumeGuardCore

@Suite("Lifecycle")
struct LifecycleTests {
    /// At 100 %, so the original (65536) and the held level (65535) differ.
    static let full = SimulatedSink(index: 1, name: Name.speakers, [Raw.full, Raw.full])
    static let originalLevel = SinkLevel(volume: .channels(Raw.full, Raw.full), muted: false)

    // MARK: Starting

    @Test("connecting asks for the default sink, then guards it")
    func startsGuarding() {
        var h = Harness([Self.full], default: Name.speakers)
        #expect(h.core.state == .connecting)
        #expect(h.feed(.connected) == [.readDefaultSink])
        h.settle()
        #expect(h.core.state == .guarding)
        #expect(h.states == [.guarding])
        #expect(
            h.reports.first
                == .guarding(
                    sink: Name.speakers, original: Self.originalLevel, held: .channels(65535, 65535)
                ))
    }

    // MARK: Pause and resume

    @Test("pausing gives the sink its original level back")
    func pauseRestores() {
        var h = Harness.guarding([Self.full])
        h.clearLog()
        let actions = h.feed(.pause)
        #expect(actions.contains { if case .setVolume(1, let volume, _) = $0 { volume == .channels(Raw.full, Raw.full) } else { false } })
        #expect(actions.contains { if case .setMute(1, false, _) = $0 { true } else { false } })
        #expect(actions.last == .stateChanged(.paused))
        h.settle()
        #expect(h.sink(Name.speakers).level == Self.originalLevel)
        #expect(h.core.state == .paused)
        #expect(h.core.guarded == nil)
    }

    @Test("while paused, the keys act normally and are not presses")
    func pausedNoPresses() {
        var h = Harness.guarding([Self.full])
        h.feed(.pause)
        h.settle()
        h.clearLog()
        h.userSets(Name.speakers, raw: 50000)
        h.userToggles(muteOf: Name.speakers)
        h.setDefault(Name.speakers)
        h.settle()
        #expect(h.presses.isEmpty)
        #expect(h.volumeWrites.isEmpty)
        #expect(h.muteWrites.isEmpty)
        #expect(h.sink(Name.speakers).level == SinkLevel(volume: .channels(50000, 50000), muted: true))
        #expect(h.core.state == .paused)
    }

    @Test("pausing while a read is on its way drops its reply")
    func pauseDropsRead() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000])])
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.step()  // the change event: the core reads; the reading is queued
        h.feed(.pause)
        h.settle()
        #expect(h.presses.isEmpty)
        #expect(h.core.state == .paused)
    }

    @Test("a new default named while a read of the held sink is on its way drops its reply")
    func newDefaultDropsRead() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000])])
        h.clearLog()
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.step()  // the change event: the core reads; the reading is queued
        h.feed(.defaultSink(nil))
        h.settle()
        #expect(h.presses.isEmpty)
        #expect(h.states == [.noSink])
        #expect(h.log.filter { if case .wakeUp = $0 { true } else { false } }.count == 1, "one recheck, not one more for the stale reply")
    }

    @Test("resuming holds the level the sink has then")
    func resumeHoldsCurrent() {
        var h = Harness.guarding([Self.full])
        h.feed(.pause)
        h.settle()
        h.userSets(Name.speakers, raw: 50000)
        h.settle()
        h.clearLog()
        h.feed(.resume)
        h.settle()
        #expect(h.states == [.connecting, .guarding])
        #expect(h.core.guarded?.original == SinkLevel(volume: .channels(50000, 50000), muted: false))
        #expect(h.volumeWrites.isEmpty, "50 % needs no clamp")
        h.userSets(Name.speakers, raw: 50000 + Raw.step5)
        h.settle()
        #expect(h.presses.map(\.direction) == [.up])
        #expect(h.sink(Name.speakers).volume == .channels(50000, 50000))
    }

    @Test("resuming holds the current level, even when the connection was lost before the pause")
    func resumeAfterOutage() {
        var h = Harness.guarding([Self.full])
        h.disconnect()
        h.feed(.pause)
        h.reconnect()
        #expect(h.core.state == .paused)
        h.userSets(Name.speakers, raw: 50000)
        h.settle()
        h.feed(.resume)
        h.settle()
        #expect(h.core.guarded?.original == SinkLevel(volume: .channels(50000, 50000), muted: false))
        #expect(h.sink(Name.speakers).volume == .channels(50000, 50000))
    }

    @Test("resuming at 100 % holds the sink at the ceiling again, without a press")
    func resumeAtFull() {
        var h = Harness.guarding([Self.full])
        h.feed(.pause)
        h.settle()
        h.feed(.resume)
        h.settle()
        #expect(h.core.state == .guarding)
        #expect(h.sink(Name.speakers).volume == .channels(65535, 65535))
        #expect(h.presses.isEmpty)
    }

    @Test("resuming while the pause's restore is still checked holds the sink with that original, and writes no restore onto it")
    func resumeDuringTheRestore() {
        var h = Harness.guarding([Self.full])
        h.skipWrites = 2  // pipewire-pulse skips the restore (its stale cache)
        h.feed(.pause)
        h.feed(.resume)
        h.settle()
        #expect(h.core.state == .guarding)
        #expect(h.core.guarded?.original == Self.originalLevel)
        #expect(h.presses.isEmpty)
        h.feed(.shutdown)
        h.settle()
        #expect(h.sink(Name.speakers).level == Self.originalLevel)
    }

    @Test("resume without a pause does nothing")
    func resumeUnpaused() {
        var h = Harness.guarding([Self.full])
        #expect(h.feed(.resume).isEmpty)
    }

    // MARK: Shutdown

    @Test("shutting down restores the original volume and mute exactly")
    func shutdownRestores() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [Raw.full, 60000], muted: true)])
        h.userToggles(muteOf: Name.speakers)
        h.settle()
        h.holdAcks = true
        let actions = h.feed(.shutdown)
        #expect(actions.contains { if case .setVolume(1, let volume, _) = $0 { volume == .channels(Raw.full, 60000) } else { false } })
        #expect(actions.contains { if case .setMute(1, true, _) = $0 { true } else { false } })
        #expect(h.core.state == .stopped)
        #expect(!h.core.allGivenBack, "the writes are not acknowledged yet")
        h.settle()
        h.deliverWithheldAcks()
        h.settle()
        #expect(h.core.allGivenBack)
        #expect(h.sink(Name.speakers).level == SinkLevel(volume: .channels(Raw.full, 60000), muted: true))
    }

    @Test("shutting down without a sink has everything given back at once")
    func shutdownWithoutSink() {
        var h = Harness([], default: nil)
        h.feed(.connected)
        h.settle()
        #expect(h.feed(.shutdown) == [.stateChanged(.stopped)])
        #expect(h.core.allGivenBack)
    }

    @Test("after shutdown nothing is guarded or published")
    func afterShutdown() {
        var h = Harness.guarding([Self.full])
        h.feed(.shutdown)
        h.settle()
        h.clearLog()
        h.userSets(Name.speakers, raw: 30000)
        h.setDefault(Name.speakers)
        h.settle()
        #expect(h.log.isEmpty)
        #expect(h.feed(.pause).isEmpty)
        #expect(h.feed(.resume).isEmpty)
        #expect(h.feed(.shutdown).isEmpty)
        #expect(h.core.state == .stopped)
    }

    @Test("a stopped guard stays stopped when the server connection comes back")
    func stoppedAcrossReconnect() {
        var h = Harness.guarding([Self.full])
        h.feed(.shutdown)
        h.settle()
        h.disconnect()
        h.clearLog()
        h.reconnect()
        #expect(h.core.state == .stopped)
        #expect(h.core.guarded == nil)
        #expect(h.volumeWrites.isEmpty)
        #expect(h.sink(Name.speakers).level == Self.originalLevel)
    }

    // MARK: Losing the server

    @Test("a lost connection means connecting again, and nothing is written")
    func disconnected() {
        var h = Harness.guarding([Self.full])
        h.online = false
        #expect(h.feed(.disconnected) == [.pressesInterrupted, .stateChanged(.connecting)])
        #expect(h.core.state == .connecting)
        #expect(h.core.guarded == nil)
    }

    @Test("on reconnect the same sink keeps its original level from before, not the clamped one it shows now")
    func reconnectKeepsOriginal() {
        var h = Harness.guarding([Self.full])
        #expect(h.sink(Name.speakers).volume == .channels(65535, 65535))
        h.disconnect()
        // The server restarted: same sink, new index, still at the level the guard held it at.
        h.sinks = [SimulatedSink(index: 7, name: Name.speakers, [65535, 65535])]
        h.clearLog()
        h.reconnect()
        #expect(h.core.state == .guarding)
        #expect(h.core.guarded?.index == 7)
        #expect(h.core.guarded?.original == Self.originalLevel)
        #expect(
            h.reports.first
                == .guarding(
                    sink: Name.speakers, original: Self.originalLevel, held: .channels(65535, 65535)
                ))
        #expect(h.volumeWrites.isEmpty)
        #expect(h.presses.isEmpty)
        h.feed(.shutdown)
        h.settle()
        #expect(h.sink(Name.speakers).level == Self.originalLevel)
    }

    @Test("on reconnect another default sink is held at its own level")
    func reconnectOtherSink() {
        var h = Harness.guarding([Self.full])
        h.disconnect()
        h.sinks = [SimulatedSink(index: 3, name: Name.hdmi, [65535, 65535])]
        h.defaultSink = Name.hdmi
        h.reconnect()
        #expect(h.core.guarded?.name == Name.hdmi)
        #expect(h.core.guarded?.original == SinkLevel(volume: .channels(65535, 65535), muted: false))
    }

    @Test("a reply from the lost connection is ignored, even when the new server reuses the index")
    func staleReplyAfterReconnect() {
        var h = Harness.guarding([SimulatedSink(index: 1, name: Name.speakers, [30000])])
        h.userSets(Name.speakers, raw: 30000 + Raw.step5)
        h.step()  // the change event: the core reads
        guard case .sinkRead(let ticket, let reading)? = h.inbox.first else {
            Issue.record("expected a queued reading, got \(h.inbox)")
            return
        }
        h.disconnect()
        h.sinks = [SimulatedSink(index: 1, name: Name.speakers, [30000 + Raw.step5])]
        h.reconnect()
        #expect(h.feed(.sinkRead(ticket, reading)).isEmpty)
        #expect(h.presses.isEmpty)
        // Same name: the original from before the drop is kept, and the sink is put back to it.
        #expect(h.core.guarded?.original.volume == .channels(30000))
        #expect(h.sink(Name.speakers).volume == .channels(30000))
    }

    @Test("paused across a reconnect stays paused")
    func pausedAcrossReconnect() {
        var h = Harness.guarding([Self.full])
        h.feed(.pause)
        h.settle()
        h.disconnect()
        h.clearLog()
        h.reconnect()
        #expect(h.core.state == .paused)
        #expect(h.volumeWrites.isEmpty)
        h.feed(.resume)
        h.settle()
        #expect(h.core.state == .guarding)
    }
}
