import ArgumentParser
import ClientCommands
import GuardSettings

/// `run`'s flags for the MQTT broker: the config file's `mqtt` keys, in their words (`Options+Broker.swift`).
struct BrokerOptions: ParsableArguments {
    @Option(help: .setting("mqtt", valueName: "url"))
    var mqtt: String?

    @Option(help: .setting("mqtt-user", valueName: "user"))
    var mqttUser: String?

    @Option(help: .setting("mqtt-password-file", valueName: "path"))
    var mqttPasswordFile: String?

    @Option(name: .customLong("mqtt-ca-file"), help: .setting("mqtt-ca-file", valueName: "path"))
    var mqttCaFile: String?

    @Option(help: .setting("mqtt-cert-file", valueName: "path"))
    var mqttCertFile: String?

    @Option(help: .setting("mqtt-key-file", valueName: "path"))
    var mqttKeyFile: String?

    @Option(help: .setting("mqtt-topic", valueName: "prefix"))
    var mqttTopic: String?

    @Flag(inversion: .prefixedNo, help: .setting("mqtt-commands"))
    var mqttCommands: Bool?

    @Flag(inversion: .prefixedNo, help: .setting("mqtt-discovery"))
    var mqttDiscovery: Bool?

    @Option(help: .setting("mqtt-discovery-prefix", valueName: "prefix"))
    var mqttDiscoveryPrefix: String?

    /// `options` with these flags' values.
    func apply(to options: inout Options) {
        options.mqtt = mqtt
        options.mqttUser = mqttUser
        options.mqttPasswordFile = mqttPasswordFile
        options.mqttCaFile = mqttCaFile
        options.mqttCertFile = mqttCertFile
        options.mqttKeyFile = mqttKeyFile
        options.mqttTopic = mqttTopic
        options.mqttCommands = mqttCommands
        options.mqttDiscovery = mqttDiscovery
        options.mqttDiscoveryPrefix = mqttDiscoveryPrefix
    }
}
