extension Options {
    /// The MQTT broker's settings, in the order volume-guard(5) lists them.
    static let brokerSettings: [Setting] = [
        .text(
            "mqtt", \.mqtt, "a broker address",
            help: """
                An MQTT broker to publish presses, gestures and the state to, with Home Assistant's discovery: \
                `mqtt://HOST[:PORT]` (port 1883 by default) or `mqtts://HOST[:PORT]` for TLS (8883); off by default. \
                While the broker is away, presses wait for it, in order, up to 1,000.
                """, check: BrokerAddress.problem),
        .text("mqtt-user", \.mqttUser, "a user name", help: "The user to log in to the broker as (default: none)."),
        .text(
            "mqtt-password-file", \.mqttPasswordFile, "a path",
            help: """
                A file whose first line is the broker's password (mode 0600), read at each connection: never the \
                password itself, which would sit in the config file or the process's arguments.
                """),
        .text(
            "mqtt-ca-file", \.mqttCaFile, "a path",
            help: "For `mqtts`: the CA certificate (PEM) to verify the broker with (default: the system's CAs)."),
        .text(
            "mqtt-cert-file", \.mqttCertFile, "a path",
            help: "For `mqtts`: a client certificate (PEM) for a broker that asks for one, with `mqtt-key-file`."),
        .text("mqtt-key-file", \.mqttKeyFile, "a path", help: "For `mqtts`: the client certificate's key (PEM, not encrypted)."),
        .text(
            "mqtt-topic", \.mqttTopic, "a topic",
            help: """
                The topics' prefix: `PREFIX/events`, `PREFIX/availability`, `PREFIX/state` and `PREFIX/command` \
                (default `volume-guard/HOSTNAME`). The client id is made from it.
                """, check: BrokerSettings.problem(topic:)),
        .bool(
            "mqtt-commands", \.mqttCommands,
            help: "Whether `pause` and `resume` published on `PREFIX/command` are obeyed (default false: anyone who may publish there could stop the guard)."),
        .bool(
            "mqtt-discovery", \.mqttDiscovery,
            help:
                "Whether Home Assistant's MQTT discovery configs are published: a device, its event entity and a trigger for each key and gesture (default true)."
        ),
        .text(
            "mqtt-discovery-prefix", \.mqttDiscoveryPrefix, "a topic",
            help: "Home Assistant's discovery prefix (default `homeassistant`, Home Assistant's own).", check: BrokerSettings.problem(topic:)),
    ]

    /// What is wrong with the broker's keys together, or nil: with `mqtt` set, TLS files without TLS, or
    /// a client certificate without its key. Asked of the options of one source (the file, the flags) and
    /// of all together; without `mqtt` the other keys do nothing.
    public var brokerProblem: (key: String, problem: String)? {
        guard let address = mqtt.flatMap(BrokerAddress.init) else { return nil }
        let tlsKeys = [("mqtt-ca-file", mqttCaFile), ("mqtt-cert-file", mqttCertFile), ("mqtt-key-file", mqttKeyFile)]
        if !address.tls, let (key, _) = tlsKeys.first(where: { $0.1 != nil }) {
            return (key, "is for TLS: write the broker as mqtts://")
        }
        if (mqttCertFile == nil) != (mqttKeyFile == nil) {
            return mqttCertFile == nil ? ("mqtt-key-file", "needs mqtt-cert-file") : ("mqtt-cert-file", "needs mqtt-key-file")
        }
        return nil
    }

    /// The broker these options name, every setting decided; nil without `mqtt`.
    var brokerSettings: BrokerSettings? {
        guard let address = mqtt.flatMap(BrokerAddress.init) else { return nil }
        return BrokerSettings(
            address: address, user: mqttUser, passwordFile: mqttPasswordFile, caFile: mqttCaFile, certFile: mqttCertFile, keyFile: mqttKeyFile,
            topic: mqttTopic ?? BrokerSettings.defaultTopic, commands: mqttCommands ?? false,
            discoveryPrefix: mqttDiscovery ?? true ? mqttDiscoveryPrefix ?? "homeassistant" : nil
        )
    }
}
