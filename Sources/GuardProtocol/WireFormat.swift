import FoundationEssentials

/// The protocol's framing: UTF-8 JSON, one object per line.
public enum WireFormat {
    /// The longest request line the daemon reads; a longer one is refused and the connection closed.
    public static let maximumLineLength = 64 * 1024

    /// Encodes `message` as one line, newline included.
    public static func line(_ message: some Encodable) -> Data {
        // Every message is made of strings, integers, booleans and finite numbers: encoding cannot fail.
        var data = try! encoder.encode(message)
        data.append(0x0A)
        return data
    }

    /// The timestamp format of press lines: ISO 8601, UTC, milliseconds.
    public static func timestamp(_ date: Date) -> String {
        date.formatted(timestampStyle)
    }

    /// Built once, not for every line.
    private static let encoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private static let timestampStyle = Date.ISO8601FormatStyle.iso8601.year().month().day()
        .time(includingFractionalSeconds: true).timeZone(separator: .omitted)
}

/// Any line the daemon sends, as a client reads it.
public enum ServerMessage: Hashable, Sendable {
    case status(StatusMessage)
    case subscribed(SubscribedMessage)
    case press(PressMessage)
    case gesture(GestureMessage)
    case release(ReleaseMessage)
    case state(StateMessage)
    case ack(AckMessage)
    case error(ErrorMessage)

    private struct Kind: Decodable { var type: String }

    /// Decodes one line; nil for a line that is not a message this version knows.
    public init?(line: some Collection<UInt8>) {
        let data = Data(line)
        func decode<Message: Decodable>(_ type: Message.Type) -> Message? {
            try? JSONDecoder().decode(type, from: data)
        }
        guard let kind = decode(Kind.self) else { return nil }
        let message: ServerMessage? =
            switch kind.type {
            case "status": decode(StatusMessage.self).map(Self.status)
            case "subscribed": decode(SubscribedMessage.self).map(Self.subscribed)
            case "press": decode(PressMessage.self).map(Self.press)
            case "gesture": decode(GestureMessage.self).map(Self.gesture)
            case "release": decode(ReleaseMessage.self).map(Self.release)
            case "state": decode(StateMessage.self).map(Self.state)
            case "error": decode(ErrorMessage.self).map(Self.error)
            case let type where AckMessage.types.contains(type): decode(AckMessage.self).map(Self.ack)
            default: nil
            }
        guard let message else { return nil }
        self = message
    }
}

/// The release this build belongs to: the file VERSION at the root of the checkout, which the build plugin VersionFile
/// (Plugins/VersionFile) writes into this module as `versionFile`.
public enum VolumeGuardVersion {
    public static let current = versionFile
}
