/// Tells a client that fights the guard from a person pressing keys.
///
/// Another client that holds a level of its own (a second guard, an app enforcing its volume) sets the
/// sink again right after every reset, to the same value each time, and the two would loop forever. A
/// person cannot land on the same value within milliseconds of every reset, twenty times in a row. When
/// that happens the guard stops fighting: it holds the other client's level from then on, so both agree,
/// and key presses are still counted and put back (to that level).
struct Contest: Hashable, Sendable {
    /// How soon after a reset's acknowledgement a change counts as an answer to it.
    static let window: Duration = .milliseconds(5)
    static let streakToYield = 20

    private var last: SinkLevel?
    private var streak = 0
    /// When the guard's last reset was acknowledged.
    private var resetAcknowledged: Duration?

    /// The guard's reset was acknowledged at `time`.
    mutating func acknowledged(at time: Duration) {
        resetAcknowledged = time
    }

    /// Notes a change of the sink to `level` at `now`; `afterReset` when it was seen in the reading right
    /// after a reset (its verification). True when the change completes a fight: the guard should hold
    /// `level` from now on.
    mutating func noteChange(to level: SinkLevel, at now: Duration, afterReset: Bool) -> Bool {
        if afterReset, let acknowledged = resetAcknowledged, now - acknowledged <= Self.window {
            streak = level == last ? streak + 1 : 1
        } else {
            streak = 0
        }
        last = level
        guard streak >= Self.streakToYield else { return false }
        streak = 0
        return true
    }
}
