/// The requests about the held sink (or the sink looked for) that are still unanswered: one read, or
/// the writes of one correction, never both.
///
/// A reading taken while one of the core's writes is unacknowledged could not be told from the write's
/// echo, and two reads at once could answer out of turn. So the sink is read when it may have changed
/// (it is *due*), but only once nothing is in flight; the last acknowledgement of a correction makes it
/// due, and the reading after it is the correction's verification (see `EchoJudge`). The writes that
/// give a sink back are not in flight here: `Custodian` follows them.
struct InFlight: Hashable, Sendable {
    private enum State: Hashable, Sendable {
        case idle
        /// A read is on its way; `changes` change events of the held sink came since it was asked for.
        case reading(ReadTicket, changes: Int)
        /// The writes of a correction, until each is acknowledged.
        case writing(Set<WriteTag>)
    }

    private var state = State.idle
    /// The held sink changed, or was written, since it was last read.
    private var due = false

    var isReading: Bool {
        if case .reading = state { true } else { false }
    }

    /// Asks for a read (the held sink, a sink by name, every sink); a reply to any earlier one is stale now.
    mutating func read(_ ids: inout RequestIDs) -> ReadTicket {
        let ticket = ids.ticket()
        state = .reading(ticket, changes: 0)
        return ticket
    }

    /// Issues one write of a correction. The core corrects only what it has just read, so no read is in flight.
    mutating func write(_ ids: inout RequestIDs) -> WriteTag {
        let tag = ids.tag()
        if case .writing(let tags) = state {
            state = .writing(tags.union([tag]))
        } else {
            state = .writing([tag])
        }
        return tag
    }

    /// A reply with `ticket`: how many change events of the held sink came while it was on its way, or
    /// nil when it answers a read no longer awaited.
    mutating func answered(_ ticket: ReadTicket) -> Int? {
        guard case .reading(ticket, let changes) = state else { return nil }
        state = .idle
        return changes
    }

    /// The held sink reported a change: it is due, unless a read is on its way, whose reply shows the
    /// change already (docs/COUNTING.md, "The echo rule").
    mutating func sinkChanged() {
        if case .reading(let ticket, let changes) = state {
            state = .reading(ticket, changes: changes + 1)
        } else {
            due = true
        }
    }

    /// An acknowledgement: true when it was the last of the correction's writes, which makes the sink due.
    mutating func acknowledged(_ tag: WriteTag) -> Bool {
        guard case .writing(var tags) = state, tags.remove(tag) != nil else { return false }
        guard tags.isEmpty else {
            state = .writing(tags)
            return false
        }
        state = .idle
        due = true
        return true
    }

    /// The held sink is worth reading again though no event said so (a burst paused, a new target).
    mutating func markDue() {
        due = true
    }

    /// Asks for a read of the held sink when it is due and nothing is in flight.
    mutating func readIfDue(_ ids: inout RequestIDs) -> ReadTicket? {
        guard due, state == .idle else { return nil }
        due = false
        return read(&ids)
    }

    /// Nothing on its way is awaited any more: the sink held was let go (what is on its way is of that
    /// sink: the core looks for the next one only after), the connection changed, or the core stopped
    /// looking.
    mutating func forget() {
        state = .idle
        due = false
    }
}
