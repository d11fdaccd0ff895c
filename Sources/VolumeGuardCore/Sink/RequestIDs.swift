/// The identity of one write the guard issued: a reset to the held level, or a restore of an original.
///
/// The audio server tells nobody which client changed a sink, so the guard recognises its own echoes by
/// bookkeeping: each write carries a tag, and the observation that follows its acknowledgement is
/// judged against what that write set. Equality with the held level alone is not enough: a real press
/// that lands while a reset is in flight can produce the same value.
public struct WriteTag: Hashable, Sendable, CustomStringConvertible {
    public let seq: UInt64

    public init(seq: UInt64) { self.seq = seq }

    public var description: String { "#\(seq)" }
}

/// The identity of one read the guard asked for, so that a stale reply is recognised and dropped.
public struct ReadTicket: Hashable, Sendable {
    public let seq: UInt64

    public init(seq: UInt64) { self.seq = seq }
}

/// Hands out the tags and tickets of the core's requests, each new over the core's life, so that an
/// acknowledgement or a reply finds the one request it answers, whichever part of the core issued it.
struct RequestIDs: Hashable, Sendable {
    private var lastTag: UInt64 = 0
    private var lastTicket: UInt64 = 0

    mutating func tag() -> WriteTag {
        lastTag += 1
        return WriteTag(seq: lastTag)
    }

    mutating func ticket() -> ReadTicket {
        lastTicket += 1
        return ReadTicket(seq: lastTicket)
    }
}
