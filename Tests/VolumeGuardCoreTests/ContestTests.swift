import Testing
import VolumeGuardCore

@Suite("Another client fighting the guard")
struct ContestTests {
    static let speakers = SimulatedSink(index: 1, name: Name.speakers, [30000, 30000])
    static let fighterLevel = SinkLevel(volume: .channels(40000, 40000), muted: false)

    /// Guarding the speakers while another client holds them at its own level, from its first write.
    static func fought() -> Harness {
        var h = Harness.guarding([speakers])
        h.fighter = (Name.speakers, fighterLevel)
        h.userSets(Name.speakers, [40000, 40000])
        // The answers come faster than keys repeat: the guard defers its reset between rounds (a burst).
        h.wait(.seconds(1))
        return h
    }

    @Test("a client that answers every reset with its own level makes the guard hold that level, not loop")
    func yields() {
        let h = Self.fought()
        #expect(h.core.isContested)
        #expect(h.reports.contains(.contested(sink: Name.speakers, held: .channels(40000, 40000))))
        // Bounded: the guard gave in after a streak, not at the harness's delivery limit.
        #expect(h.volumeWrites.count <= 25)
        #expect(h.sink(Name.speakers).volume == .channels(40000, 40000))
    }

    @Test("after giving in, presses are still counted and put back to the other client's level, and the original is restored at exit")
    func pressesAfterContest() {
        var h = Self.fought()
        let before = h.presses.count
        h.fighter = nil
        h.userSets(Name.speakers, [43277, 43277])
        h.settle()
        #expect(h.presses.count == before + 1)
        #expect(h.presses.last?.direction == .up)
        #expect(h.sink(Name.speakers).volume == .channels(40000, 40000))
        h.feed(.shutdown)
        h.settle()
        #expect(h.sink(Name.speakers).volume == .channels(30000, 30000))
    }

    @Test("a person's key presses at auto-repeat pace, landing on the same level each time, are no fight")
    func heldKeyIsNoFight() {
        var h = Harness.guarding([Self.speakers])
        h.pace = .milliseconds(25)
        for _ in 0..<60 {
            h.userSets(Name.speakers, [33277, 33277])
            h.settle()
        }
        #expect(!h.core.isContested)
        #expect(h.presses.count == 60)
        #expect(h.sink(Name.speakers).volume == .channels(30000, 30000))
    }
}
