import NIOCore

/// The latest press lines, as sent, with the release lines between them, so that a client that
/// reconnects with `since` gets the presses after `since` and their releases, in the order they were
/// sent: a press replayed is never left down when its key is up again. Bounded: the oldest press goes,
/// with the releases that came before it, when a new one comes in at capacity.
///
/// Seqs rise by one per press and every press is appended, so what is kept is always the run of seqs
/// ending at `lastSeq`: the presses after a seq are the last `lastSeq - seq` entries, when that many
/// are still kept. A release carries its press's seq, so those of presses after `since` are the ones
/// with a higher seq.
struct PressHistory {
    /// What a subscriber with `since` is owed.
    struct Replay {
        /// The kept presses after `since` and their releases, oldest first; each press with its seq for an
        /// event's id (a release's line carries its press's seq, and its event none).
        var lines: [(seq: UInt64?, line: ByteBuffer)]
        /// Some presses above `since` were already dropped, so `lines` does not hold them all.
        var gap: Bool

        static let none = Replay(lines: [], gap: false)
    }

    /// A release line, with the seq of its press.
    private typealias Release = (seq: UInt64, line: ByteBuffer)

    /// A press, and the releases sent between the press before it and this one.
    private struct Entry {
        var releasesBefore: [Release]
        var line: ByteBuffer
    }

    let capacity: Int
    /// The presses of seqs `lastSeq - entries.count + 1 ... lastSeq`.
    private var entries: CircularBuffer<Entry>
    /// The releases sent since the last press.
    private var releasesAfter: [Release] = []
    private(set) var lastSeq: UInt64 = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a press history keeps at least one press")
        self.capacity = capacity
        entries = CircularBuffer(initialCapacity: capacity)
    }

    mutating func append(seq: UInt64, line: ByteBuffer) {
        assert(seq == lastSeq + 1, "press seqs rise by one")
        if entries.count == capacity { entries.removeFirst() }
        entries.append(Entry(releasesBefore: releasesAfter, line: line))
        releasesAfter = []
        lastSeq = seq
    }

    /// Keeps the release of the press `seq`.
    mutating func appendRelease(seq: UInt64, line: ByteBuffer) {
        releasesAfter.append((seq, line))
    }

    /// The presses after `since` and their releases. A `since` at or beyond `lastSeq` (a client that has
    /// every press and their releases, or one that counted with an earlier daemon, whose seqs restarted)
    /// is owed nothing and has no gap.
    func replay(after since: UInt64) -> Replay {
        guard since < lastSeq else { return .none }
        let owed = lastSeq - since
        let kept = entries.suffix(Int(clamping: owed))
        // The seq before the first press replayed: `since`, or later when presses after it were dropped,
        // whose releases are not owed either.
        let before = lastSeq - UInt64(kept.count)
        var seq = before
        var lines: [(seq: UInt64?, line: ByteBuffer)] = []
        func releases(_ sent: [Release]) -> [(seq: UInt64?, line: ByteBuffer)] {
            sent.filter { $0.seq > before }.map { (nil, $0.line) }
        }
        for entry in kept {
            seq += 1
            lines += releases(entry.releasesBefore)
            lines.append((seq, entry.line))
        }
        lines += releases(releasesAfter)
        return Replay(lines: lines, gap: owed > entries.count)
    }
}
