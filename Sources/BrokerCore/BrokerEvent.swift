import FoundationEssentials
import GuardProtocol

/// The JSON of one press or gesture on the events topic. Its fields are spelled as the socket's
/// `PressMessage` and `GestureMessage` spell them; `event_type` names the (gesture, key) pair once, for
/// Home Assistant's event entity and as the payload its device triggers compare.
public struct BrokerEvent: Hashable, Sendable, Codable {
    public struct Device: Hashable, Sendable, Codable {
        public var name: String
        /// The Bluetooth address (`uniq`), when the device has one.
        public var address: String?

        public init(name: String, address: String? = nil) {
            self.name = name
            self.address = address
        }
    }

    public var seq: UInt64
    /// `press` or `gesture`.
    public var type: String
    public var direction: Direction?
    public var key: String?
    public var gesture: GestureKind?
    public var eventType: String
    public var device: Device?
    /// ISO 8601, UTC, milliseconds (`WireFormat.timestamp`).
    public var time: String

    enum CodingKeys: String, CodingKey {
        case seq, type, direction, key, gesture, device, time
        case eventType = "event_type"
    }

    public init(_ press: PressMessage, address: String? = nil) {
        seq = press.seq
        type = press.type
        direction = press.direction
        key = press.key
        gesture = nil
        eventType = Self.eventType(nil, keyName: Self.keyName(direction: press.direction, key: press.key))
        device = press.device.map { Device(name: $0, address: address) }
        time = press.time
    }

    public init(_ message: GestureMessage, address: String? = nil) {
        seq = message.seq
        type = message.type
        direction = message.direction
        key = message.key
        gesture = message.gesture
        eventType = Self.eventType(message.gesture, keyName: Self.keyName(direction: message.direction, key: message.key))
        device = message.device.map { Device(name: $0, address: address) }
        time = message.time
    }

    /// A volume key by its direction (`up`), another key by the kernel's name (`KEY_ENTER`).
    public static func keyName(direction: Direction?, key: String?) -> String {
        direction?.rawValue ?? key ?? "unknown"
    }

    /// `tap:up`, `hold_start:KEY_ENTER`; a press of no gesture is `press:up`.
    public static func eventType(_ gesture: GestureKind?, keyName: String) -> String {
        "\(gesture?.rawValue ?? "press"):\(keyName)"
    }

    /// The JSON, keys sorted.
    public var payload: String { BrokerJSON.encode(self) }
}

enum BrokerJSON {
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every value here is strings, numbers and optionals of them: encoding cannot fail.
        let data = try! encoder.encode(value)
        return String(decoding: data, as: UTF8.self)
    }
}
