import Glibc

/// The MQTT broker the daemon publishes to (`mqtt` and the keys beside it), every setting decided.
public struct BrokerSettings: Hashable, Sendable {
    public var address: BrokerAddress
    public var user: String?
    /// The file whose first line is the password: read when a connection is made, never kept in a
    /// configuration, so that no `config --json`, log line or `status` can show it.
    public var passwordFile: String?
    /// For `mqtts`: the CA to verify the broker with (nil: the system's), and the client's certificate.
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    /// The topic prefix: `<topic>/events`, `<topic>/availability`, ...
    public var topic: String
    /// Whether `pause` and `resume` on `<topic>/command` are obeyed.
    public var commands: Bool
    /// Home Assistant's discovery prefix; nil with discovery off.
    public var discoveryPrefix: String?

    public init(
        address: BrokerAddress, user: String? = nil, passwordFile: String? = nil, caFile: String? = nil, certFile: String? = nil,
        keyFile: String? = nil, topic: String, commands: Bool = false, discoveryPrefix: String? = "homeassistant"
    ) {
        self.address = address
        self.user = user
        self.passwordFile = passwordFile
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.topic = topic
        self.commands = commands
        self.discoveryPrefix = discoveryPrefix
    }

    /// The MQTT client id: `vg-` and 16 hex digits of the topic's FNV-1a hash, so the same on every start
    /// (Home Assistant's device is keyed by it) and different for two daemons of different topics. 19
    /// characters: within MQTT 3.1's 23.
    public var clientID: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in topic.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "vg-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `volume-guard/<this machine's name>`.
    public static var defaultTopic: String {
        let level = hostName.filter { !"+#/".contains($0) }
        return "volume-guard/" + (level.isEmpty ? "localhost" : level)
    }

    /// This machine's name (gethostname(2)), as the default topic and Home Assistant's device name say it.
    public static var hostName: String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What is wrong with a topic prefix as written, or nil: MQTT's wildcards and empty levels do not name
    /// one topic.
    public static func problem(topic: String) -> String? {
        if topic.isEmpty { return "must not be empty" }
        if topic.contains(where: { $0 == "+" || $0 == "#" }) { return "must not hold MQTT's wildcards + or #" }
        if topic.hasPrefix("/") || topic.hasSuffix("/") || topic.contains("//") { return "must not have an empty level (a leading, trailing or double /)" }
        if topic.contains("\0") { return "must not hold a NUL" }
        if topic.utf8.count > 200 { return "must be at most 200 bytes" }
        return nil
    }
}
