import NIOCore

/// The latest press lines, as sent, so that a client that reconnects with `since` gets the presses it
/// missed. Bounded: the oldest line goes when a new one comes in at capacity.
///
/// Seqs rise by one per press and every press is appended, so what is kept is always the run of seqs
/// ending at `lastSeq`: the presses after a seq are the last `lastSeq - seq` entries, when that many
/// are still kept.
struct PressHistory {
    /// What a subscriber with `since` is owed.
    struct Replay {
        /// The kept lines with a seq above `since`, oldest first.
        var lines: [ByteBuffer]
        /// Some presses above `since` were already dropped, so `lines` does not hold them all.
        var gap: Bool
        /// The seq of the first of `lines` (the others follow it by one each).
        var firstSeq: UInt64
    }

    let capacity: Int
    /// The lines of seqs `lastSeq - entries.count + 1 ... lastSeq`.
    private var entries: CircularBuffer<ByteBuffer>
    private(set) var lastSeq: UInt64 = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a press history keeps at least one press")
        self.capacity = capacity
        entries = CircularBuffer(initialCapacity: capacity)
    }

    mutating func append(seq: UInt64, line: ByteBuffer) {
        assert(seq == lastSeq + 1, "press seqs rise by one")
        if entries.count == capacity { entries.removeFirst() }
        entries.append(line)
        lastSeq = seq
    }

    /// The presses after `since`. A `since` at or beyond `lastSeq` (a client that has everything, or
    /// one that counted with an earlier daemon, whose seqs restarted) is owed nothing and has no gap.
    func replay(after since: UInt64) -> Replay {
        guard since < lastSeq else { return Replay(lines: [], gap: false, firstSeq: lastSeq + 1) }
        let owed = lastSeq - since
        let lines = Array(entries.suffix(Int(clamping: owed)))
        return Replay(lines: lines, gap: owed > entries.count, firstSeq: lastSeq - UInt64(lines.count) + 1)
    }
}
