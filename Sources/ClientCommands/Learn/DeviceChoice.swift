import VolumeGuardCore

/// How `learn` names a device in the config file: the most specific match that still finds the remote
/// after it sleeps and reconnects (on another event node), and takes no other device present.
///
/// In order: its Bluetooth address (the only thing that tells identical remotes apart, and the same on
/// every reconnect); the remote's name, which takes all its parts, when no other device present has a
/// name it takes; its by-id link; its ids, when no other device has them; its by-path link (the same
/// port); and last its node, which a reconnect may change, said so.
struct DeviceChoice: Hashable, Sendable {
    var match: DeviceMatch
    /// Why this match, for the user.
    var reason: String
    /// Whether it may miss the device after a reconnect.
    var fragile: Bool

    init(for device: InputDeviceInfo, among present: [InputDeviceInfo]) {
        let others = present.filter { $0.node != device.node }
        if let address = device.address {
            self.init(.address(address), "its Bluetooth address: the same after every reconnect, and not an identical remote's")
            return
        }
        let name = DeviceMatch.name(Self.remoteName(device.name))
        // The remote's parts have names of their own; a second device of the same name is an identical remote.
        let named = others.filter(name.matches)
        if !named.contains(where: { $0.name == device.name || ($0.vendor, $0.product) != (device.vendor, device.product) }) {
            self.init(name, "its name, which takes all of the remote's parts")
            return
        }
        if let link = device.stablePaths.first(where: { $0.contains("/by-id/") }) {
            self.init(.path(link), "its /dev/input/by-id link: another device has the same name")
            return
        }
        let ids = DeviceMatch.ids(vendor: device.vendor, product: device.product)
        if !others.contains(where: ids.matches) {
            self.init(ids, "its vendor and product ids: another device has the same name")
            return
        }
        if let link = device.stablePaths.first(where: { $0.contains("/by-path/") }) {
            self.init(.path(link), "its /dev/input/by-path link: the same port; an identical device is present")
            return
        }
        self.init(
            .path(device.node),
            "its node: an identical device is present, and neither has an address or a stable link; a reconnect may move it to another node",
            fragile: true)
    }

    private init(_ match: DeviceMatch, _ reason: String, fragile: Bool = false) {
        self.match = match
        self.reason = reason
        self.fragile = fragile
    }

    /// The name of the remote whose part `name` is: without the part's suffix the kernel appends
    /// ("AB Shutter3 Consumer Control" is a part of "AB Shutter3").
    static func remoteName(_ name: String) -> String {
        for suffix in DeviceMatch.partSuffixes where name.hasSuffix(" " + suffix) && name.count > suffix.count + 1 {
            return String(name.dropLast(suffix.count + 1))
        }
        return name
    }
}
