import Foundation
import GuardProtocol
import TestSupport
import Testing

/// One daemon's Home Assistant discovery configs among the messages a subscriber received (the last of each
/// topic; an empty one removes its config), each checked against what Home Assistant's MQTT discovery
/// documents: the `event` entity (integrations/event.mqtt) and one device trigger per key and gesture
/// (integrations/device_trigger.mqtt), all on one device and tied to the daemon's availability.
struct Announcement {
    /// The daemon's node id in the discovery topics.
    let node: String
    let uniqueID: String
    let eventTypes: Set<String>
    /// The triggers' configs by their object id (`tap_up`).
    let triggers: [String: [String: Any]]
    let deviceIdentifiers: [String]

    /// The configs of the one daemon announced under `homeassistant`, whose topics are under `prefix`.
    init(_ messages: [BrokerSubscriber.Message], prefix: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let found = try Self.find(messages, prefix: prefix)
        node = found.node
        let entity = found.entity

        #expect(!node.isEmpty && node.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }, "node id \(node)", sourceLocation: sourceLocation)
        uniqueID = try #require(entity["unique_id"] as? String, "\(entity)", sourceLocation: sourceLocation)
        #expect(!uniqueID.isEmpty, sourceLocation: sourceLocation)
        eventTypes = Set(try #require(entity["event_types"] as? [String], "\(entity)", sourceLocation: sourceLocation))
        #expect(entity["state_topic"] as? String == "\(prefix)/events", sourceLocation: sourceLocation)
        #expect(entity["availability_topic"] as? String == "\(prefix)/availability", sourceLocation: sourceLocation)
        #expect(entity["payload_available"] as? String ?? "online" == "online", sourceLocation: sourceLocation)
        #expect(entity["payload_not_available"] as? String ?? "offline" == "offline", sourceLocation: sourceLocation)
        #expect(entity["qos"] as? Int == 1, "Home Assistant subscribes at QoS 0 unless told", sourceLocation: sourceLocation)
        let device = try #require(entity["device"] as? [String: Any], "\(entity)", sourceLocation: sourceLocation)
        deviceIdentifiers = try #require(device["identifiers"] as? [String], "\(device)", sourceLocation: sourceLocation)
        #expect(!deviceIdentifiers.isEmpty, sourceLocation: sourceLocation)
        #expect((device["name"] as? String)?.contains(hostName) == true, "\(device)", sourceLocation: sourceLocation)
        #expect(device["sw_version"] as? String == VolumeGuardVersion.current, "\(device)", sourceLocation: sourceLocation)

        triggers = found.triggers
        var kinds = Set<String>()
        for (object, trigger) in triggers {
            #expect(trigger["automation_type"] as? String == "trigger", "\(object)", sourceLocation: sourceLocation)
            #expect(trigger["qos"] as? Int == 1, "\(object)", sourceLocation: sourceLocation)
            #expect(trigger["topic"] as? String == "\(prefix)/events", "\(object)", sourceLocation: sourceLocation)
            let type = try #require(trigger["type"] as? String, "\(object): \(trigger)", sourceLocation: sourceLocation)
            let subtype = try #require(trigger["subtype"] as? String, "\(object): \(trigger)", sourceLocation: sourceLocation)
            let payload = try #require(trigger["payload"] as? String, "\(object): \(trigger)", sourceLocation: sourceLocation)
            #expect(kinds.insert("\(type) \(subtype)").inserted, "(type, subtype) twice on one device: \(type) \(subtype)", sourceLocation: sourceLocation)
            #expect(object == payload.replacingOccurrences(of: ":", with: "_"), "\(object): \(payload)", sourceLocation: sourceLocation)
            #expect(payload.hasSuffix(":\(subtype)"), "\(object): \(payload)", sourceLocation: sourceLocation)
            #expect(eventTypes.contains(payload), "the entity has no event type \(payload)", sourceLocation: sourceLocation)
            #expect(trigger["value_template"] as? String == "{{ value_json.event_type }}", "\(object)", sourceLocation: sourceLocation)
            let device = try #require(trigger["device"] as? [String: Any], "\(object): \(trigger)", sourceLocation: sourceLocation)
            #expect(device["identifiers"] as? [String] == deviceIdentifiers, "\(object): \(device)", sourceLocation: sourceLocation)
        }
    }

    /// Whether the messages hold the whole announcement of the daemon whose topics are under `prefix`: its
    /// event entity, a trigger for each of its gesture types and one for each key that has no gesture. The
    /// daemon publishes `online` before its configs, so a test that has seen `online` waits for this.
    static func isComplete(_ messages: [BrokerSubscriber.Message], prefix: String) -> Bool {
        guard let found = try? find(messages, prefix: prefix), let types = found.entity["event_types"] as? [String] else { return false }
        let withGestures = Set(types.filter { !$0.hasPrefix("press:") }.map { $0.split(separator: ":").last! })
        return types.allSatisfy { type in
            type.hasPrefix("press:") && withGestures.contains(type.split(separator: ":").last!)
                || found.triggers[type.replacingOccurrences(of: ":", with: "_")] != nil
        }
    }

    /// The daemon's event entity config (the one whose state topic is `prefix`'s events topic), its node id
    /// and its triggers' configs by object id, from the last payload of each discovery topic (an empty one
    /// removed its config).
    private static func find(
        _ messages: [BrokerSubscriber.Message], prefix: String
    ) throws -> (node: String, entity: [String: Any], triggers: [String: [String: Any]]) {
        var last: [String: String] = [:]
        for message in messages where message.topic.hasPrefix("homeassistant/") { last[message.topic] = message.payload }
        let configs = last.filter { !$0.value.isEmpty }
        let events = try configs.filter { topic, _ in topic.hasPrefix("homeassistant/event/") && topic.hasSuffix("/presses/config") }
            .map { topic, payload in (topic, try object(payload, topic)) }
            .filter { $0.1["state_topic"] as? String == "\(prefix)/events" }
        guard events.count == 1, let (eventTopic, entity) = events.first else {
            throw TestFailure("not one event entity's config of \(prefix) among \(configs.keys.sorted())")
        }
        let node = eventTopic.split(separator: "/")[2].description
        let triggerPrefix = "homeassistant/device_automation/\(node)/"
        var triggers: [String: [String: Any]] = [:]
        for (topic, payload) in configs where topic.hasPrefix(triggerPrefix) && topic.hasSuffix("/config") {
            triggers[String(topic.dropFirst(triggerPrefix.count).dropLast("/config".count))] = try object(payload, topic)
        }
        return (node, entity, triggers)
    }

    /// The trigger object ids for `keys` and `gestures`, as the daemon names them (`hold_start_up`).
    static func objects(gestures: [String], keys: [String]) -> Set<String> {
        Set(gestures.flatMap { gesture in keys.map { "\(gesture)_\($0)" } })
    }

    private static func object(_ payload: String, _ topic: String) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any] else {
            throw TestFailure("\(topic): not a JSON object: \(payload)")
        }
        return object
    }
}
