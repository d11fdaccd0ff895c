/// Reply to `subscribe`; the presses replayed for `since` follow, then live ones.
public struct SubscribedMessage: Hashable, Sendable, Codable {
    public var type = "subscribed"
    public var id: RequestID?
    public var lastSeq: UInt64
    /// Names this run of the daemon, anew at every start. Seqs count from 1 in each run, so a `since`
    /// taken from another run means nothing here: its client was away across a restart.
    public var instance: String
    /// True when presses after the request's `since` were already dropped from the daemon's history, so
    /// the replay cannot be complete; absent otherwise, so that a client need only test for it.
    public var gap: Bool?

    public init(id: RequestID?, lastSeq: UInt64, instance: String, gap: Bool = false) {
        self.id = id
        self.lastSeq = lastSeq
        self.instance = instance
        self.gap = gap ? true : nil
    }

    private enum CodingKeys: String, CodingKey {
        case type, id, instance, gap
        case lastSeq = "last_seq"
    }
}
