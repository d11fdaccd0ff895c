/// The topics one daemon uses on the broker, under its `prefix` and Home Assistant's `discoveryPrefix`.
public struct BrokerTopics: Hashable, Sendable {
    /// Where everything of this daemon lives: `volume-guard/<hostname>` unless configured.
    public var prefix: String
    /// Home Assistant's discovery prefix: `homeassistant` unless configured.
    public var discoveryPrefix: String
    /// The daemon's name in discovery topics and identifiers: the client id with every character outside
    /// `[a-zA-Z0-9_-]` made `_` (Home Assistant's rule for a node id).
    public var nodeID: String

    public init(prefix: String, discoveryPrefix: String = "homeassistant", clientID: String) {
        self.prefix = prefix
        self.discoveryPrefix = discoveryPrefix
        self.nodeID = Self.nodeID(clientID)
    }

    /// Retained `online` while connected; the will and a clean stop leave `offline`.
    public var availability: String { "\(prefix)/availability" }
    /// The daemon's state, retained.
    public var state: String { "\(prefix)/state" }
    /// Every press and gesture, one JSON message each, not retained.
    public var events: String { "\(prefix)/events" }
    /// `pause` and `resume` in, when commands are on.
    public var command: String { "\(prefix)/command" }
    /// Home Assistant's birth (`online`) and will (`offline`).
    public var homeAssistantStatus: String { "\(discoveryPrefix)/status" }

    public static func nodeID(_ clientID: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
        let node = String(clientID.map { allowed.contains($0) ? $0 : "_" })
        return node.isEmpty ? "volume-guard" : node
    }
}

/// One retained or plain message for a topic: a discovery config, its removal (empty payload), the state.
public struct BrokerDocument: Hashable, Sendable {
    public var topic: String
    public var payload: String

    public init(topic: String, payload: String) {
        self.topic = topic
        self.payload = payload
    }
}
