import GuardProtocol

/// Home Assistant's MQTT discovery configs for one daemon: one device, one `event` entity whose event types
/// are every key's press and every (gesture, key) configured (an event of another type is dropped, with a
/// warning in Home Assistant's log), and one device trigger per pair. All retained, all tied to the
/// availability topic.
///
/// Checked in Home Assistant's docs (integrations/device_trigger.mqtt): the topic is
/// `<discovery_prefix>/device_automation/[<node_id>/]<object_id>/config`, one trigger per topic, (`type`,
/// `subtype`) unique per device; `automation_type` must be `trigger`; `topic`, `type`, `subtype` required;
/// `payload` matched against the `value_template`'s result. The event entity (integrations/event.mqtt) needs
/// `event_types` and reads `event_type` from the JSON message. Both subscribe at the `qos` they are given, 0
/// unless told: given 1, a press reaches Home Assistant at least once on the broker's side too. Tried
/// against Home Assistant 2024.3: the device, its event entity and its triggers appear, and an automation
/// on a trigger runs once per press of its key and gesture.
public enum DiscoveryDocuments {
    /// What the daemon tells Home Assistant about itself.
    public struct Node: Hashable, Sendable {
        public var topics: BrokerTopics
        public var hostName: String
        public var version: String
        /// The volume keys by direction (`up`, `down`, `mute`) and the `keys` setting's names (`KEY_ENTER`).
        public var keys: [String]
        public var gestures: [GestureKind]
        /// Of `keys`, those whose presses make no gestures (mute, on the sink): their trigger is the press.
        public var pressOnly: [String]

        public init(topics: BrokerTopics, hostName: String, version: String, keys: [String], gestures: [GestureKind], pressOnly: [String] = []) {
            self.topics = topics
            self.hostName = hostName
            self.version = version
            self.keys = keys
            self.gestures = gestures
            self.pressOnly = pressOnly
        }
    }

    /// Home Assistant's trigger type for a gesture (its built-in button types, so the UI names them).
    public static func triggerType(_ gesture: GestureKind) -> String {
        switch gesture {
        case .tap: "button_short_press"
        case .holdStart: "button_long_press"
        case .holdEnd: "button_long_release"
        case .double: "button_double_press"
        }
    }

    public static func documents(_ node: Node) -> [BrokerDocument] {
        let topics = node.topics
        let device = Device(
            identifiers: [topics.nodeID], name: "volume-guard on \(node.hostName)", swVersion: node.version
        )
        let pairs: [(GestureKind?, String)] =
            node.gestures.flatMap { gesture in node.keys.filter { !node.pressOnly.contains($0) }.map { (gesture, $0) } }
            + node.pressOnly.map { (nil, $0) }
        let event = EventConfig(
            name: "Presses", uniqueID: "\(topics.nodeID)_presses", stateTopic: topics.events,
            eventTypes: node.keys.map { BrokerEvent.eventType(nil, keyName: $0) }
                + pairs.filter { $0.0 != nil }.map { BrokerEvent.eventType($0.0, keyName: $0.1) },
            availabilityTopic: topics.availability, device: device
        )
        let triggers = pairs.map { gesture, key in
            BrokerDocument(
                topic: "\(topics.discoveryPrefix)/device_automation/\(topics.nodeID)/\(gesture?.rawValue ?? "press")_\(BrokerTopics.nodeID(key))/config",
                payload: BrokerJSON.encode(
                    TriggerConfig(
                        topic: topics.events, type: gesture.map(triggerType) ?? triggerType(.tap), subtype: key,
                        payload: BrokerEvent.eventType(gesture, keyName: key), device: device
                    )
                )
            )
        }
        let eventTopic = "\(topics.discoveryPrefix)/event/\(topics.nodeID)/presses/config"
        return [BrokerDocument(topic: eventTopic, payload: BrokerJSON.encode(event))] + triggers
    }

    /// The configs of `old` that `new` no longer has, each as its removal: an empty retained payload.
    public static func removals(old: [BrokerDocument], new: [BrokerDocument]) -> [BrokerDocument] {
        let kept = Set(new.map(\.topic))
        return old.filter { !kept.contains($0.topic) }.map { BrokerDocument(topic: $0.topic, payload: "") }
    }

    struct Device: Hashable, Codable {
        var identifiers: [String]
        var name: String
        var swVersion: String
        var model = "volume-guard"
        var manufacturer = "volume-guard"

        enum CodingKeys: String, CodingKey {
            case identifiers, name, model, manufacturer
            case swVersion = "sw_version"
        }
    }

    struct EventConfig: Codable {
        var name: String
        var uniqueID: String
        var stateTopic: String
        var eventTypes: [String]
        var availabilityTopic: String
        var payloadAvailable = "online"
        var payloadNotAvailable = "offline"
        /// Home Assistant's subscription's QoS (its default is 0): at least once from the broker to it too.
        var qos = 1
        var device: Device

        enum CodingKeys: String, CodingKey {
            case name, device, qos
            case uniqueID = "unique_id"
            case stateTopic = "state_topic"
            case eventTypes = "event_types"
            case availabilityTopic = "availability_topic"
            case payloadAvailable = "payload_available"
            case payloadNotAvailable = "payload_not_available"
        }
    }

    struct TriggerConfig: Codable {
        var automationType = "trigger"
        var topic: String
        var type: String
        var subtype: String
        var payload: String
        var valueTemplate = "{{ value_json.event_type }}"
        var qos = 1
        var device: Device

        enum CodingKeys: String, CodingKey {
            case topic, type, subtype, payload, device, qos
            case automationType = "automation_type"
            case valueTemplate = "value_template"
        }
    }
}
