/// An input device as the kernel describes it in sysfs, which anyone may read: enough to match it, name
/// it in the log and write a udev rule for it, before (or without) opening its node.
public struct InputDeviceInfo: Hashable, Sendable {
    /// Its event node, e.g. `/dev/input/event3`.
    public var node: String
    /// The name EVIOCGNAME gives (sysfs `name`).
    public var name: String
    public var vendor: UInt16
    public var product: UInt16
    /// Its links under `/dev/input/by-id/` and `/dev/input/by-path/`, which udev makes (none without udev,
    /// and none for most Bluetooth devices).
    public var stablePaths: [String]
    /// The key codes it can send (its EV_KEY capabilities).
    public var keys: Set<UInt16>

    public init(node: String, name: String, vendor: UInt16, product: UInt16, stablePaths: [String] = [], keys: Set<UInt16>) {
        self.node = node
        self.name = name
        self.vendor = vendor
        self.product = product
        self.stablePaths = stablePaths
        self.keys = keys
    }

    /// Whether `other` is this device, as a later scan sees it: the same node, name, ids and keys. Its
    /// links may differ, since udev makes them a moment after the node.
    func isSameDevice(_ other: InputDeviceInfo) -> Bool {
        var other = other
        other.stablePaths = stablePaths
        return self == other
    }

    /// Whether `opened`, what an opened node's descriptor says it is (EVIOCGNAME, EVIOCGID), is this
    /// device: event numbers are reused, so a node opened after a scan may be another device's by then.
    public func isSameDevice(opened: InputDeviceInfo) -> Bool {
        (name, vendor, product) == (opened.name, opened.vendor, opened.product)
    }

    /// `vendor:product` in hex, as lsusb and the config file write it: `2717:0040`.
    public var ids: String { DeviceMatch.ids(vendor: vendor, product: product).description }
}
