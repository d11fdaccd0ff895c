/// The kernel's names of keys and buttons (`KEY_VOLUMEUP`, `KEY_ENTER`, `BTN_LEFT`), as the config file
/// and the wire spell them, and their codes (linux/input-event-codes.h).
public enum KeyNames {
    /// The code of the key called `name`, or nil when the kernel has no such key.
    public static func code(_ name: String) -> UInt16? {
        codes[name]
    }

    /// The name of the key with `code`: the kernel's, or `KEY_` and the number for a code it has no name for.
    public static func name(_ code: UInt16) -> String {
        names[code] ?? "KEY_\(code)"
    }

    private static let codes: [String: UInt16] = Dictionary(
        uniqueKeysWithValues: table.split(whereSeparator: \.isWhitespace).map { entry in
            let parts = entry.split(separator: "=")
            return (String(parts[0]), UInt16(parts[1])!)
        })

    private static let names: [UInt16: String] = Dictionary(uniqueKeysWithValues: codes.map { ($0.value, $0.key) })
}

extension Direction {
    /// The volume key for this direction: KEY_VOLUMEUP, KEY_VOLUMEDOWN or KEY_MUTE.
    public var key: UInt16 {
        switch self {
        case .up: 115
        case .down: 114
        case .mute: 113
        }
    }

    /// The direction a volume key stands for; nil for any other key.
    public init?(key: UInt16) {
        guard let direction = Self.allCases.first(where: { $0.key == key }) else { return nil }
        self = direction
    }
}
