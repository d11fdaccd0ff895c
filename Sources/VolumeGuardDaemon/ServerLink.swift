import PulseBridge

/// The guard's connection to the audio server: which attempt is current, how long to wait before the
/// next one, and what the server said it is.
///
/// A failed libpulse context cannot reconnect, so each attempt is a new `PulseConnection`, numbered by
/// `generation`: events and replies of an older one, still on their way, are told apart and dropped.
struct ServerLink {
    private(set) var connection: PulseConnection?
    private(set) var generation = 0
    /// The server's name and version, while connected.
    private(set) var description: String?
    private var backoff = Self.firstBackoff

    /// Reconnect attempts start fast and back off to `maximumBackoff`.
    static let firstBackoff: Duration = .milliseconds(50)
    static let maximumBackoff: Duration = .seconds(1)

    /// Starts counting a new attempt; returns its generation.
    mutating func newAttempt() -> Int {
        generation += 1
        return generation
    }

    func isCurrent(_ generation: Int) -> Bool {
        generation == self.generation
    }

    mutating func connected(_ connection: PulseConnection, server: String) {
        self.connection = connection
        description = server
        backoff = Self.firstBackoff
    }

    /// The connection is gone (or never came): closes what is left; returns how long to wait before
    /// the next attempt.
    mutating func lost() -> Duration {
        close()
        description = nil
        defer { backoff = min(backoff * 2, Self.maximumBackoff) }
        return backoff
    }

    /// Closes the connection and retires its attempt. The guard runs on the connection's mainloop, so
    /// it closes at once; the requests it cancels complete on the mainloop's next turn, as failed, and
    /// are stale by then, as is all else the attempt still reports: the same loss told twice (the
    /// context's failure, then a request it cancelled) is acted on once.
    mutating func close() {
        connection?.assumeIsolated { $0.close() }
        connection = nil
        generation += 1
    }
}
