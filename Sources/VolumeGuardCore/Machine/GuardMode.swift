/// When the daemon guards the sink.
public enum GuardMode: String, Hashable, Sendable, CaseIterable, Codable {
    /// Always: the volume keys are buttons for as long as the daemon runs.
    case always
    /// Only while at least one client is subscribed: with no app listening, the keys act normally. The
    /// first subscriber starts the guard; when the last one leaves the sink gets its level back.
    case whileSubscribed = "while-subscribed"
}
