import VolumeGuardCore

/// A udev rule file that lets the user logged in at the machine read exactly the configured input
/// devices, and no others: keyboards are root's on purpose, since a program that can read one can log
/// every key typed on it, so the package installs no rule of its own and the user installs this one.
///
/// Each line tags matching event nodes `uaccess`, which 73-seat-late.rules turns into an ACL for the
/// user of the seat's active session; the file must therefore sort before it.
public enum UdevRule {
    /// Where the rule goes.
    public static let path = "/etc/udev/rules.d/70-volume-guard.rules"
    /// How to apply it to the devices present.
    public static let applyCommand = "sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=input"

    /// The rule file for `matches`: a name matches the devices `DeviceMatch.matches` accepts (that name,
    /// and the name with each HID part's suffix), ids every device with those ids, and a path the device
    /// present at it now, by its name and ids (a path itself is no attribute udev can match, and nothing
    /// can be said of a path with no device).
    public static func text(for matches: [DeviceMatch], devices: [InputDeviceInfo]) -> String {
        var lines = header
        for match in matches {
            lines.append("")
            lines += section(for: match, devices: devices)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static let header = [
        "# \(path), from `volume-guard devices --udev-rule`.",
        "# It lets the user logged in at this machine (a desktop's, or a kiosk's automatic login) read the input devices",
        "# volume-guard is configured to take, and no others: a program that can read a keyboard can log every key typed on it.",
        "# TAG+=\"uaccess\" asks for that user's ACL, which 73-seat-late.rules sets: this file must sort before it.",
        "# For a user with no session on the machine's seat, put OWNER=\"the user\" in place of TAG+=\"uaccess\".",
        "# Install and apply it:",
        "#   volume-guard devices --udev-rule | sudo tee \(path)",
        "#   \(applyCommand)",
        "# A Bluetooth remote that is not connected now is readable when it connects; one that is connected and still",
        "# is not readable: disconnect and reconnect it.",
    ]

    private static func section(for match: DeviceMatch, devices: [InputDeviceInfo]) -> [String] {
        switch match {
        case .name(let name):
            let names = [name] + DeviceMatch.partSuffixes.map { "\(name) \($0)" }
            return ["# \(comment(name)): the device of this name, and its parts (\(comment(names[1])), …)"]
                + names.map { rule([("name", $0)]) }
        case .ids(let vendor, let product):
            return ["# \(match): every device with these vendor and product ids"] + [rule(ids(vendor: vendor, product: product))]
        case .path(let path):
            let present = devices.filter(match.matches)
            guard !present.isEmpty else {
                return [
                    "# \(comment(path)): no device is there now, so no rule can name it.",
                    "# Name it in the config file by its name or vendor:product instead (`volume-guard devices` lists them).",
                ]
            }
            return present.flatMap { device in
                [
                    "# \(comment(path)): now \(device.node), \(comment(device.name)) (\(device.ids))",
                    rule([("name", device.name)] + ids(vendor: device.vendor, product: device.product)),
                ]
            }
        }
    }

    private static func ids(vendor: UInt16, product: UInt16) -> [(String, String)] {
        let ids = DeviceMatch.ids(vendor: vendor, product: product).description.split(separator: ":")
        return [("id/vendor", String(ids[0])), ("id/product", String(ids[1]))]
    }

    /// A rule line for event nodes whose input device has each of `attributes` (all on the same device,
    /// as udev's ATTRS keys must be), each matched exactly.
    private static func rule(_ attributes: [(name: String, value: String)]) -> String {
        let keys = attributes.map { "ATTRS{\($0.name)}==\(UdevPattern.exactly($0.value))" }
        return (["SUBSYSTEM==\"input\"", "KERNEL==\"event*\""] + keys + ["TAG+=\"uaccess\""]).joined(separator: ", ")
    }

    /// `text` on one comment line.
    private static func comment(_ text: String) -> String {
        "\"" + String(text.map { $0.isNewline ? " " : $0 }) + "\""
    }
}
