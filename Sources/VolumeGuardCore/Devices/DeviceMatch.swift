/// How the config file names an input device to take keys from: by its name, its vendor and product
/// ids, its Bluetooth address, or a path to its node.
///
/// One remote is often several devices: the kernel gives each part of a HID device (its keyboard, its
/// consumer control) a device of its own, named after the whole with the part's kind appended ("AB
/// Shutter3 Keyboard", "AB Shutter3 Consumer Control"). A name matches the device of exactly that name
/// and those parts, so that naming the remote takes all of it; ids match every part too. Nothing else
/// matches: not a longer name ("AB Shutter30"), not a part of another kind of suffix.
public enum DeviceMatch: Hashable, Sendable, CustomStringConvertible {
    /// The name EVIOCGNAME gives, or the name of the remote whose parts these are.
    case name(String)
    /// `vendor:product`, four hex digits each.
    case ids(vendor: UInt16, product: UInt16)
    /// A Bluetooth address, `2a:07:98:10:34:9c`, lower case: the device whose `uniq` it is, and its parts
    /// (the kernel gives each part the remote's). Identical remotes share name and ids (keyd#1064); their
    /// addresses differ, and stay as they are when a remote sleeps and comes back on another node.
    case address(String)
    /// A path to the node: `/dev/input/by-id/…`, `/dev/input/by-path/…` or `/dev/input/eventN`.
    case path(String)

    /// The kinds the kernel appends to a HID device's name for each of its parts (hid-input.c,
    /// `hidinput_allocate`).
    public static let partSuffixes = [
        "Keyboard", "Keypad", "Mouse", "Pen", "Touchscreen", "Touchpad", "System Control", "Consumer Control",
        "Wireless Radio Control", "System Multi Axis",
    ]

    /// Reads a match as the config file and `--device` write it: a path starts with `/`, ids are
    /// `vvvv:pppp` in hex, an address six pairs of hex digits with colons between (either case), and
    /// anything else is a name. Nil for an empty one.
    public init?(_ text: String) {
        guard !text.isEmpty else { return nil }
        if text.hasPrefix("/") {
            self = .path(text)
        } else if let ids = Self.ids(text) {
            self = .ids(vendor: ids.vendor, product: ids.product)
        } else if let address = Self.address(text) {
            self = .address(address)
        } else {
            self = .name(text)
        }
    }

    private static func ids(_ text: String) -> (vendor: UInt16, product: UInt16)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 4 && $0.allSatisfy(\.isHexDigit) }),
            let vendor = UInt16(parts[0], radix: 16), let product = UInt16(parts[1], radix: 16)
        else { return nil }
        return (vendor, product)
    }

    /// `text` as a Bluetooth address in lower case, if it is one: six pairs of hex digits, colons between.
    public static func address(_ text: String) -> String? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return text.lowercased()
    }

    /// What is wrong with a device as written, or nil.
    public static func problem(_ text: String) -> String? {
        DeviceMatch(text) == nil ? "must not be empty" : nil
    }

    /// Whether `device` is this one, or a part of it.
    public func matches(_ device: InputDeviceInfo) -> Bool {
        switch self {
        case .name: matches(name: device.name)
        case .ids(let vendor, let product):
            device.vendor == vendor && device.product == product
        case .address(let address):
            device.address == address
        case .path(let path):
            device.node == path || device.stablePaths.contains(path)
        }
    }

    /// Whether a device called `name` is this one, or a part of it; false for ids and paths, which a
    /// name alone cannot meet.
    public func matches(name: String) -> Bool {
        guard case .name(let wanted) = self else { return false }
        return name == wanted || Self.partSuffixes.contains { name == "\(wanted) \($0)" }
    }

    public var description: String {
        switch self {
        case .name(let name): name
        case .ids(let vendor, let product): "\(Self.hex(vendor)):\(Self.hex(product))"
        case .address(let address): address
        case .path(let path): path
        }
    }

    private static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}

extension [DeviceMatch] {
    /// The matches that no device of `devices` meets: configured, not present.
    public func absent(among devices: [InputDeviceInfo]) -> [DeviceMatch] {
        filter { match in !devices.contains(where: match.matches) }
    }
}
