/// Where a subscriber stands: the seq of the last press it has, and, when it knows, the run of the
/// daemon (`SubscribedMessage.instance`) that seq was counted in.
///
/// An event stream's `id:` is one (`5@3f0c9d2e-...`), so the `Last-Event-ID` that a browser's
/// `EventSource` sends when it reconnects tells the daemon both; the socket's `since` is a seq alone.
/// Seqs count from 1 in each run, so a seq from another run is worth nothing here: the subscriber was
/// away across a restart and is owed every press of this run.
struct StreamPosition: Hashable, Sendable, CustomStringConvertible {
    var seq: UInt64
    /// Nil when the subscriber did not say (the socket's `since`, a hand-written `Last-Event-ID`): the seq
    /// is taken as this run's.
    var instance: String?

    init(seq: UInt64, instance: String? = nil) {
        self.seq = seq
        self.instance = instance
    }

    /// `SEQ@INSTANCE` as sent in `id:`, or a bare `SEQ`; nil for anything else.
    init?(eventID text: String) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let seq = UInt64(parts[0]), parts[0].allSatisfy(\.isASCII) else { return nil }
        if parts.count == 2 {
            guard !parts[1].isEmpty else { return nil }
            self.init(seq: seq, instance: String(parts[1]))
        } else {
            self.init(seq: seq)
        }
    }

    var description: String {
        instance.map { "\(seq)@\($0)" } ?? "\(seq)"
    }

    /// The `since` this position means to the run `current`: its seq, unless it names another run.
    func since(in current: String) -> UInt64 {
        instance == nil || instance == current ? seq : 0
    }
}
