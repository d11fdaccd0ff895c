import NIOCore
import Testing

@testable import VolumeGuardDaemon

@Suite("The press history that `since` replays")
struct PressHistoryTests {
    var history = PressHistory(capacity: 3)

    /// The replay's lines as text, a press as "seq:line", a release as its line.
    func replayed(after since: UInt64) -> [String] {
        history.replay(after: since).lines.map { seq, line in (seq.map { "\($0):" } ?? "") + String(buffer: line) }
    }

    mutating func press(_ seq: UInt64) { history.append(seq: seq, line: ByteBuffer(string: "press \(seq)")) }
    mutating func release(_ seq: UInt64) { history.appendRelease(seq: seq, line: ByteBuffer(string: "release \(seq)")) }

    @Test("A client that resumes gets the presses after its last one, in order")
    mutating func presses() {
        for seq: UInt64 in 1...3 { press(seq) }
        #expect(replayed(after: 1) == ["2:press 2", "3:press 3"])
        #expect(replayed(after: 3) == [], "it has them all")
    }

    @Test("A press replayed comes with its release, in the order they were sent; releases of presses it had are not sent again")
    mutating func releasesInOrder() {
        press(1)
        press(2)
        release(1)
        press(3)
        release(3)
        release(2)
        #expect(replayed(after: 0) == ["1:press 1", "2:press 2", "release 1", "3:press 3", "release 3", "release 2"])
        #expect(replayed(after: 1) == ["2:press 2", "3:press 3", "release 3", "release 2"])
        #expect(replayed(after: 2) == ["3:press 3", "release 3"])
        #expect(replayed(after: 3) == [], "it has every press: their releases came after them")
    }

    @Test("The oldest press goes with the releases sent before it; a resume from before it has a gap, and no release of a press dropped")
    mutating func bounded() {
        press(1)
        press(2)
        release(1)
        release(2)
        for seq: UInt64 in 3...5 { press(seq) }
        #expect(history.replay(after: 1).gap)
        #expect(replayed(after: 1) == ["3:press 3", "4:press 4", "5:press 5"], "press 2 was dropped, so is its release")
        #expect(!history.replay(after: 2).gap)
    }

    @Test("A since beyond the last press (another run's) is owed nothing")
    mutating func anotherRun() {
        press(1)
        release(1)
        let replay = history.replay(after: 7)
        #expect(replay.lines.isEmpty && !replay.gap)
    }
}
