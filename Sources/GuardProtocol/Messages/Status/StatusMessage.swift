/// Reply to `status`.
public struct StatusMessage: Hashable, Sendable, Codable {
    public var type = "status"
    public var id: RequestID?
    public var state: GuardState
    public var sink: String?
    public var held: LevelMessage?
    public var original: LevelMessage?
    public var muted: Bool?
    public var presses: PressCountsMessage
    public var lastSeq: UInt64
    public var subscribers: Int
    /// The audio server's name and version, e.g. "pulseaudio 16.1".
    public var server: String?
    public var uptimeSeconds: Double
    /// True when another client fought the guard (set the volume right after every reset): the guard
    /// then holds that client's level (`held`) instead, and still reports and resets presses.
    public var contested: Bool
    /// The HTTP listener, when the daemon runs one.
    public var http: HTTPListenerMessage?
    /// Where presses come from: `sink`, `input` or `both`.
    public var source: String
    /// The input devices, with `input` or `both`: each one found that matches, and each match that no
    /// device present meets.
    public var devices: [DeviceMessage]?
    /// The configured actions, in the config file's order; absent when there are none.
    public var actions: [ActionMessage]?
    /// The MQTT broker, when `mqtt` is configured.
    public var mqtt: BrokerStatusMessage?

    public init(
        id: RequestID?, state: GuardState, sink: String?, held: LevelMessage?, original: LevelMessage?,
        muted: Bool?, presses: PressCountsMessage, lastSeq: UInt64, subscribers: Int, server: String?,
        uptimeSeconds: Double, contested: Bool = false, http: HTTPListenerMessage? = nil, source: String = "sink",
        devices: [DeviceMessage]? = nil, actions: [ActionMessage]? = nil, mqtt: BrokerStatusMessage? = nil
    ) {
        self.id = id
        self.state = state
        self.sink = sink
        self.held = held
        self.original = original
        self.muted = muted
        self.presses = presses
        self.lastSeq = lastSeq
        self.subscribers = subscribers
        self.server = server
        self.uptimeSeconds = uptimeSeconds
        self.contested = contested
        self.http = http
        self.source = source
        self.devices = devices
        self.actions = actions
        self.mqtt = mqtt
    }

    private enum CodingKeys: String, CodingKey {
        case type, id, state, sink, held, original, muted, presses, subscribers, server, contested, http, source, devices, actions, mqtt
        case lastSeq = "last_seq"
        case uptimeSeconds = "uptime_seconds"
    }
}
