/// An input device as the kernel describes it in sysfs, which anyone may read: enough to match it, name
/// it in the log and write a udev rule for it, before (or without) opening its node.
public struct InputDeviceInfo: Hashable, Sendable {
    /// Its event node, e.g. `/dev/input/event3`.
    public var node: String
    /// The name EVIOCGNAME gives (sysfs `name`).
    public var name: String
    public var vendor: UInt16
    public var product: UInt16
    /// The bus it is on (sysfs `id/bustype`, the kernel's `BUS_*`): USB, Bluetooth, …
    public var bus: UInt16
    /// What the kernel calls its unique identifier (sysfs `uniq`, EVIOCGUNIQ); empty when it has none. For a
    /// Bluetooth remote BlueZ makes it the remote's address, the one thing that tells identical remotes apart.
    public var uniq: String
    /// Its links under `/dev/input/by-id/` and `/dev/input/by-path/`, which udev makes (none without udev,
    /// and none for most Bluetooth devices).
    public var stablePaths: [String]
    /// The key codes it can send (its EV_KEY capabilities).
    public var keys: Set<UInt16>

    public init(
        node: String, name: String, vendor: UInt16, product: UInt16, bus: UInt16 = 0, uniq: String = "", stablePaths: [String] = [],
        keys: Set<UInt16>
    ) {
        self.node = node
        self.name = name
        self.vendor = vendor
        self.product = product
        self.bus = bus
        self.uniq = uniq
        self.stablePaths = stablePaths
        self.keys = keys
    }

    /// Whether `other` is this device, as a later scan sees it: the same node, name, ids, address and keys.
    /// Its links may differ, since udev makes them a moment after the node.
    public func isSameDevice(_ other: InputDeviceInfo) -> Bool {
        var other = other
        other.stablePaths = stablePaths
        return self == other
    }

    /// Whether `opened`, what an opened node's descriptor says it is (EVIOCGNAME, EVIOCGID, EVIOCGUNIQ), is
    /// this device: event numbers are reused, so a node opened after a scan may be another device's by
    /// then, and an identical remote differs by its address alone.
    public func isSameDevice(opened: InputDeviceInfo) -> Bool {
        (name, vendor, product, uniq) == (opened.name, opened.vendor, opened.product, opened.uniq)
    }

    /// `vendor:product` in hex, as lsusb and the config file write it: `2717:0040`.
    public var ids: String { DeviceMatch.ids(vendor: vendor, product: product).description }

    /// Its Bluetooth address, lower case, when its `uniq` is one (`2a:07:98:10:34:9c`); nil otherwise (a
    /// USB device's serial number, or nothing).
    public var address: String? { DeviceMatch.address(uniq) }

    /// The bus by the name people know it by (`usb`, `bluetooth`), or its number in hex.
    public var busName: String {
        switch bus {
        case 0x03: "usb"
        case 0x05: "bluetooth"
        case 0x06: "virtual"
        case 0x11: "i8042"
        case 0x19: "host"
        default: String(bus, radix: 16)
        }
    }
}
