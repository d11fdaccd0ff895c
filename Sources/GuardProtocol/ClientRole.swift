/// What a paired client may do over the HTTP listener; each role allows what the one before it allows.
public enum ClientRole: String, Hashable, Sendable, Codable, CaseIterable, Comparable {
    /// The event stream, `status` and the page.
    case watch
    /// Also a press of its own (`POST /press`), which reaches every subscriber and runs the actions.
    case trigger
    /// Also `pause` and `resume`.
    case operate

    /// Whether a client of this role may do what `needed` allows.
    public func allows(_ needed: ClientRole) -> Bool {
        needed <= self
    }

    public static func < (lhs: ClientRole, rhs: ClientRole) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The roles as `--role` and the docs list them.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
