import GuardProtocol

/// Where the daemon takes presses from.
public enum SourceSelection: String, Hashable, Sendable, CaseIterable, Codable {
    /// The default sink's volume changes, whatever made them: the audio server must run.
    case sink
    /// The configured input devices' keys only: no audio server is needed.
    case input
    /// Both: the sink guarded as with `sink`, and the configured devices grabbed. A grabbed device's keys
    /// never reach the sink, so nothing is counted twice.
    case both

    /// Whether the sink is guarded.
    public var guardsSink: Bool { self != .input }
    /// Whether input devices are taken.
    public var takesDevices: Bool { self != .sink }
    /// Whether presses come from `source`. A paired client's come whichever source is selected.
    public func takes(_ source: Source) -> Bool {
        switch source {
        case .sink: guardsSink
        case .input: takesDevices
        case .client: true
        }
    }
}
