import GuardProtocol
import InputDevices
import SystemPackage
import VolumeGuardCore

/// One input device as `volume-guard devices` shows it: what it is, whether this user can read it,
/// whether the daemon holds it, and whether the configuration takes it.
struct DeviceListing: Encodable {
    var node: String
    var name: String
    var ids: String
    /// The bus it is on: `usb`, `bluetooth`, …
    var bus: String
    /// Its Bluetooth address; absent when it has none.
    var address: String?
    var stablePaths: [String]
    var readable: Bool
    /// Whether the running daemon grabbed it; absent when no daemon answers.
    var grabbed: Bool?
    /// What the daemon does with it, when it reports it (`waiting`, `refused`, …).
    var state: DeviceState?
    /// The configured devices (as written) that match it.
    var matches: [String]
    /// The keys it has that would be presses: the volume keys, and the configured keys.
    var keys: [String]
    /// How many keys it has in all.
    var keyCount: Int
    /// What to do when it is configured but this user cannot read it.
    var fix: String?

    private enum CodingKeys: String, CodingKey {
        case node, name, ids, bus, address, readable, grabbed, state, matches, keys, fix
        case stablePaths = "stable_paths"
        case keyCount = "key_count"
    }

    /// `device` as seen by a user who can read it or not, with `matches` configured and the `daemon`'s
    /// devices (nil when no daemon answers).
    init(_ device: InputDeviceInfo, readable: Bool, matches: [DeviceMatch], keysOfInterest: [UInt16], daemon: [DeviceMessage]?) {
        node = device.node
        name = device.name
        ids = device.ids
        bus = device.busName
        address = device.address
        stablePaths = device.stablePaths
        self.readable = readable
        let reported = daemon?.first { $0.path == device.node }
        state = reported?.state
        grabbed = daemon.map { _ in reported?.state == .grabbed }
        self.matches = matches.filter { $0.matches(device) }.map(\.description)
        keys = keysOfInterest.filter(device.keys.contains).map(KeyNames.name)
        keyCount = device.keys.count
        if !readable && !self.matches.isEmpty {
            fix = DeviceProblem(.permissionDenied, node: device.node, info: device).fix
        }
    }

    /// The lines `volume-guard devices` prints for it.
    var text: [String] {
        var lines = ["\(node)  \"\(name)\"  \(ids)  \(bus)"]
        func field(_ label: String, _ value: String) {
            lines.append("    " + label.padding(toLength: 12) + value)
        }
        if let address { field("address", address) }
        field("stable", stablePaths.isEmpty ? "none" : stablePaths.joined(separator: ", "))
        if readable {
            field("readable", "yes")
        } else if let fix {
            field("readable", "no: permission denied")
            field("fix", fix)
        } else {
            field("readable", "no (to use it: name it with --device or in the config file's devices, then install the rule that --udev-rule prints)")
        }
        switch (grabbed, state) {
        case (nil, _): field("grabbed", "unknown (no daemon answers)")
        case (true?, _): field("grabbed", "yes, by volume-guard")
        case (false?, let state?): field("grabbed", "no, volume-guard reports it \(state.rawValue)")
        case (false?, nil): field("grabbed", "not by volume-guard")
        }
        field("configured", matches.isEmpty ? "no" : "yes: " + matches.joined(separator: ", "))
        let all = "\(keyCount) key\(keyCount == 1 ? "" : "s") in all"
        field("keys", keys.isEmpty ? "none of the volume keys or the configured keys (\(all))" : keys.joined(separator: ", ") + " (\(all))")
        return lines
    }
}

extension String {
    /// This string with spaces after it up to `length` characters (and at least one).
    fileprivate func padding(toLength length: Int) -> String {
        self + String(repeating: " ", count: Swift.max(1, length - count))
    }
}
