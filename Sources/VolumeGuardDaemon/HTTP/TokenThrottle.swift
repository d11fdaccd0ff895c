/// Slows down a client that guesses tokens: an address that sends `limit` wrong tokens within `window` is
/// refused (429) for `lockout`, whatever it sends, so that not even a right token gets through to tell it
/// that it guessed one. A 256-bit token is not guessed, but every try costs the daemon a request.
///
/// The log hears of an address once, at its first wrong token, not once per request; an address quiet
/// for `window` (and not refused) is forgotten, and heard of again if it comes back. At most `capacity`
/// addresses are kept: a flood from more forgets the oldest first. A pure value fed the time.
struct TokenThrottle: Sendable {
    static let limit = 5
    static let window = Duration.seconds(60)
    static let lockout = Duration.seconds(60)
    static let capacity = 4096

    private struct Record {
        /// The wrong tokens within the window, oldest first.
        var failures: [Duration] = []
        /// Refused until then.
        var refusedUntil: Duration?
        var lastFailure: Duration
    }

    private var records: [String: Record] = [:]

    /// How long `address` is still refused at `now`; nil when its requests are heard.
    func refusal(of address: String, at now: Duration) -> Duration? {
        guard let until = records[address]?.refusedUntil, until > now else { return nil }
        return until - now
    }

    /// A wrong token came from `address` at `now`; returns whether the log is to hear of it: the first
    /// from an address not already kept.
    mutating func failed(from address: String, at now: Duration) -> Bool {
        forgetQuiet(at: now)
        var record = records[address] ?? Record(lastFailure: now)
        let first = records[address] == nil
        record.failures = record.failures.filter { now - $0 < Self.window } + [now]
        record.lastFailure = now
        if record.failures.count >= Self.limit {
            record.refusedUntil = now + Self.lockout
            record.failures = []
        }
        if first, records.count >= Self.capacity, let oldest = records.min(by: { $0.value.lastFailure < $1.value.lastFailure })?.key {
            records[oldest] = nil
        }
        records[address] = record
        return first
    }

    /// The addresses kept now.
    var count: Int { records.count }

    private mutating func forgetQuiet(at now: Duration) {
        records = records.filter { _, record in
            now - record.lastFailure < Self.window || (record.refusedUntil.map { $0 > now } ?? false)
        }
    }
}
