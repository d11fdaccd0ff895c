import BrokerCore
import GuardProtocol
import GuardSettings
import MQTTBridge
import VolumeGuardCore

/// The link to an MQTT broker as the guard keeps it: the machine that decides (`BrokerLink`, on a
/// `MachineLoop` of its own), the connection of its current attempt, and the link's numbers of the presses
/// in flight by the mid libmosquitto gave each publish. The guard performs what the link decides
/// (`GuardService+Broker.swift`); nothing here decides.
final class BrokerShell {
    /// Tells this shell from one a reload replaced: what their connections report is told apart by it.
    let generation: Int
    let settings: BrokerSettings
    /// The discovery configs it publishes, to compare with the next reload's.
    let documents: [BrokerDocument]
    let loop: MachineLoop<BrokerLink>
    /// The current attempt's connection, while it is open.
    var connection: BrokerConnection?
    var tickets: [Int32: UInt64] = [:]
    /// Those waiting for the link to finish: the daemon's stop.
    var whenFinished: [CheckedContinuation<Void, Never>] = []

    init(generation: Int, settings: BrokerSettings, node: DiscoveryDocuments.Node?, removals: [BrokerDocument], leftOver: [String]) {
        self.generation = generation
        self.settings = settings
        documents = node.map(DiscoveryDocuments.documents) ?? []
        let topics = Self.topics(settings)
        loop = MachineLoop(
            BrokerLink(
                BrokerLink.Configuration(
                    topics: topics, commands: settings.commands, discovery: settings.discoveryPrefix != nil, documents: documents,
                    removals: removals
                ), leftOver: leftOver))
    }

    var topics: BrokerTopics { loop.machine.configuration.topics }

    static func topics(_ settings: BrokerSettings) -> BrokerTopics {
        BrokerTopics(prefix: settings.topic, discoveryPrefix: settings.discoveryPrefix ?? "homeassistant", clientID: settings.clientID)
    }

    /// What `settings` announce to Home Assistant of a daemon of `configuration`, or nil with discovery
    /// off: every key the guard makes presses of (the volume keys, and the devices' `keys`), and every
    /// gesture; the sink's mute makes none (`GestureDetector`), so with the sink alone its press is its
    /// trigger.
    static func node(_ settings: BrokerSettings, _ configuration: DaemonConfiguration, hostName: String) -> DiscoveryDocuments.Node? {
        guard settings.discoveryPrefix != nil else { return nil }
        var keys = [Direction.up, .down].map(\.rawValue)
        var pressOnly: [String] = []
        if configuration.source.takesDevices {
            keys.append(Direction.mute.rawValue)
            keys += configuration.input.keys.sorted().map(KeyNames.name)
        } else if configuration.core.guardsMute {
            keys.append(Direction.mute.rawValue)
            pressOnly.append(Direction.mute.rawValue)
        }
        return DiscoveryDocuments.Node(
            topics: topics(settings), hostName: hostName, version: VolumeGuardVersion.current, keys: keys,
            gestures: [.tap, .double, .holdStart, .holdEnd], pressOnly: pressOnly
        )
    }

    /// The connection request of `settings`, with `password` and the retained `offline` will.
    func request(password: String?) -> BrokerConnection.ConnectRequest {
        BrokerConnection.ConnectRequest(
            settings, password: password, will: BrokerConnection.Will(topic: topics.availability, payload: Array("offline".utf8), retain: true))
    }
}

/// What a connection reported, with the shell and attempt it belongs to.
struct BrokerReportedEvent: Sendable {
    var generation: Int
    var attempt: Int
    var event: BrokerConnection.Event
}
