import VolumeGuardCore

/// The input devices present, as sysfs describes them: anyone may read sysfs, so devices are found,
/// matched and listed without opening a node (which needs a permission the user may not have yet, and
/// would open devices that nobody configured).
public enum InputDirectory {
    /// Every `eventN` device that has at least one key (EV_KEY), by event number: its name, ids, bus, `uniq` and keys
    /// from `sysfs` (`/sys/class/input/eventN/device/…`), its node in `devices`, and its links under
    /// `devices/by-id` and `devices/by-path`. A device that goes away while it is read is left out.
    public static func scan(devices: String = "/dev/input", sysfs: String = "/sys/class/input") -> [InputDeviceInfo] {
        let links = StableLinks(devices: devices)
        let events = Directory.entries(sysfs).compactMap { entry in eventNumber(entry).map { (entry, $0) } }
        return events.sorted { $0.1 < $1.1 }.compactMap { entry, _ in
            let node = "\(devices)/\(entry)"
            guard var info = device(at: "\(sysfs)/\(entry)/device", node: node), !info.keys.isEmpty else { return nil }
            info.stablePaths = links.paths(to: node)
            return info
        }
    }

    /// N for an `eventN` entry of sysfs or /dev/input, nil for anything else (`input3`, `mouse0`, `js0`).
    static func eventNumber(_ entry: String) -> Int? {
        guard entry.hasPrefix("event") else { return nil }
        let digits = entry.dropFirst("event".count)
        guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return Int(digits)
    }

    /// The input device whose sysfs directory is `directory` (`/sys/class/input/event3/device`, its
    /// `inputM`), with no stable paths yet; nil when a file is missing or not what the kernel writes.
    static func device(at directory: String, node: String) -> InputDeviceInfo? {
        guard let name = Directory.contents("\(directory)/name"),
            let vendor = Directory.contents("\(directory)/id/vendor").flatMap(hexID),
            let product = Directory.contents("\(directory)/id/product").flatMap(hexID),
            let keys = Directory.contents("\(directory)/capabilities/key").flatMap({ KeyBitmap.codes(sysfs: $0) })
        else { return nil }
        // Older kernels and some drivers leave out `uniq` or `id/bustype`: the device is still one to list.
        let bus = Directory.contents("\(directory)/id/bustype").flatMap(hexID) ?? 0
        let uniq = Directory.contents("\(directory)/uniq").map(lineValue) ?? ""
        return InputDeviceInfo(node: node, name: lineValue(name), vendor: vendor, product: product, bus: bus, uniq: uniq, keys: keys)
    }

    /// A sysfs id file's value, `%04x` and a newline.
    static func hexID(_ text: String) -> UInt16? {
        UInt16(lineValue(text), radix: 16)
    }

    /// A sysfs file's value without the newline the kernel ends it with (a name may have other
    /// whitespace of its own, which stays).
    static func lineValue(_ text: String) -> String {
        text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}
