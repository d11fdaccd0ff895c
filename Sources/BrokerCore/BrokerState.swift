import GuardProtocol
import VolumeGuardCore

/// The daemon's state, retained on the state topic: the socket's `StateMessage` fields (`state`, `sink`),
/// with where presses are taken from (`source`) and the input devices present.
public struct BrokerState: Hashable, Sendable, Codable {
    public var state: GuardState
    public var sink: String?
    public var source: SourceSelection
    /// The names of the configured input devices that are present now.
    public var devices: [String]

    public init(state: GuardState, sink: String?, source: SourceSelection, devices: [String]) {
        self.state = state
        self.sink = sink
        self.source = source
        self.devices = devices
    }

    /// The JSON, keys sorted.
    public var payload: String { BrokerJSON.encode(self) }
}
