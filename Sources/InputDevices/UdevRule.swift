import VolumeGuardCore

/// A udev rule file that lets the booth's user read exactly the configured input devices, and no others:
/// keyboards are root's on purpose, since a program that can read one can log every key typed on it, so
/// the package installs no rule of its own and the user installs this one.
///
/// It gives the devices in one of two ways (`Access`): to the user of the seat's active session, by the
/// `uaccess` tag, which 73-seat-late.rules turns into an ACL for that user (the file must therefore sort
/// before it); or to a group, as the nodes' group, which needs no session at all.
public enum UdevRule {
    /// Where the rule goes.
    public static let path = "/etc/udev/rules.d/70-volume-guard.rules"
    /// How to apply it to the devices present.
    public static let applyCommand = "sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=input"
    /// The command a user runs to install the rule and apply it: `devices --udev-rule` with `arguments`
    /// (`--access group`, `--device NAME`), into `path`, then `applyCommand`. `learn` and `doctor` print it.
    public static func installCommand(_ arguments: String = "") -> String {
        "volume-guard devices --udev-rule\(arguments) | sudo tee \(path) && \(applyCommand)"
    }

    /// The mode of a node given to a group: read and write for root, read for the group.
    public static let groupMode = "0640"

    /// Whom the rule gives the devices to.
    public enum Access: Equatable, Sendable {
        /// The user of the active session on the machine's seat (a desktop's, a kiosk's automatic login),
        /// by the `uaccess` tag: while that session lasts, and to no one when nobody is logged in there.
        case seat
        /// The members of `group` (a name, or a number udev takes as the group id), as the nodes' group:
        /// whoever is logged in, or no one.
        case group(String)

        /// Whom a rule gives the devices to unless asked: the seat when the user has an active session on a
        /// seat now (`onSeat`), else the user's primary `group` (a service started at boot, with lingering).
        public static func standard(onSeat: Bool, group: String) -> Access {
            onSeat ? .seat : .group(group)
        }

        /// The `--access` value that asks for it.
        public var name: String {
            switch self {
            case .seat: "seat"
            case .group: "group"
            }
        }
    }

    /// The `GROUP=` value for the group `gid` named `name`: the name when udev reads it as that name, else
    /// the number (udev takes a group's id too). A name is read so when it is made of letters, digits and
    /// `_.-`, starts with no `-`, and is not all digits (udev would take it as an id); `$` and `%` would be
    /// udev's substitutions.
    public static func groupValue(name: String?, gid: UInt32) -> String {
        let digits: ClosedRange<Character> = "0"..."9"
        guard let name, !name.isEmpty, name.first != "-", !name.allSatisfy(digits.contains),
            name.allSatisfy({ digits.contains($0) || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || "_.-".contains($0) })
        else { return String(gid) }
        return name
    }

    /// The rule file for `matches`: a name matches the devices `DeviceMatch.matches` accepts (that name,
    /// and the name with each HID part's suffix), ids every device with those ids, and a path the device
    /// present at it now, by its name and ids (a path itself is no attribute udev can match, and nothing
    /// can be said of a path with no device). Each line gives the nodes it matches as `access` says.
    public static func text(for matches: [DeviceMatch], devices: [InputDeviceInfo], access: Access = .seat) -> String {
        var lines = header(access)
        for match in matches {
            lines.append("")
            lines += section(for: match, devices: devices, access: access)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What a rule line does to the nodes it matches.
    private static func assignment(_ access: Access) -> String {
        switch access {
        case .seat: "TAG+=\"uaccess\""
        case .group(let group): "GROUP=\"\(group)\", MODE=\"\(groupMode)\""
        }
    }

    private static func header(_ access: Access) -> [String] {
        let command = "volume-guard devices --udev-rule --access \(access.name)"
        var lines = ["# \(path), from `\(command)`."]
        switch access {
        case .seat:
            lines += [
                "# It lets the user logged in at this machine (a desktop's, or a kiosk's automatic login) read the input devices",
                "# volume-guard is configured to take, and no others: a program that can read a keyboard can log every key typed on it.",
                "# TAG+=\"uaccess\" asks for that user's ACL, which 73-seat-late.rules sets: this file must sort before it.",
                "# With no one logged in at the machine (a service started at boot, with lingering), no one gets that ACL:",
                "# `volume-guard devices --udev-rule --access group` prints a rule that needs no login.",
            ]
        case .group(let group):
            lines += [
                "# It lets the members of the group \(comment(group)) read the input devices volume-guard is configured to take, and no",
                "# others: a program that can read a keyboard can log every key typed on it.",
                "# GROUP= and MODE=\"\(groupMode)\" make each node root's and this group's, for the group to read, whether anyone is",
                "# logged in at the machine or not (a service started at boot, with lingering). The group is the primary group of the",
                "# user who printed this rule, the service's user (Debian's adduser makes it a group of the user's own), and not",
                "# \"input\", whose members can read every keyboard. 50-udev-default.rules gives input nodes to \"input\": this file",
                "# must sort after it.",
                "# For the user logged in at this machine's seat instead: `volume-guard devices --udev-rule --access seat`.",
            ]
        }
        return lines + [
            "# Install and apply it:",
            "#   \(command) | sudo tee \(path)",
            "#   \(applyCommand)",
            "# A Bluetooth remote that is not connected now is readable when it connects; one that is connected and still",
            "# is not readable: disconnect and reconnect it.",
        ]
    }

    private static func section(for match: DeviceMatch, devices: [InputDeviceInfo], access: Access) -> [String] {
        switch match {
        case .name(let name):
            let names = [name] + DeviceMatch.partSuffixes.map { "\(name) \($0)" }
            return ["# \(comment(name)): the device of this name, and its parts (\(comment(names[1])), …)"]
                + names.map { rule([("name", $0)], access) }
        case .ids(let vendor, let product):
            return ["# \(match): every device with these vendor and product ids"] + [rule(ids(vendor: vendor, product: product), access)]
        case .address(let address):
            return [
                "# \(address): the Bluetooth remote of this address, and its parts",
                rule(["ATTRS{uniq}==\(UdevPattern.anyCase(address: address))"], access),
            ]
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
                    rule([("name", device.name)] + ids(vendor: device.vendor, product: device.product), access),
                ]
            }
        }
    }

    private static func ids(vendor: UInt16, product: UInt16) -> [(String, String)] {
        let ids = DeviceMatch.ids(vendor: vendor, product: product).description.split(separator: ":")
        return [("id/vendor", String(ids[0])), ("id/product", String(ids[1]))]
    }

    /// A rule line for event nodes whose input device has each of `attributes` (all on the same device,
    /// as udev's ATTRS keys must be), each matched exactly, that gives them as `access` says.
    private static func rule(_ attributes: [(name: String, value: String)], _ access: Access) -> String {
        rule(attributes.map { "ATTRS{\($0.name)}==\(UdevPattern.exactly($0.value))" }, access)
    }

    /// A rule line for event nodes that meet each of `keys` (match keys as the file writes them).
    private static func rule(_ keys: [String], _ access: Access) -> String {
        (["SUBSYSTEM==\"input\"", "KERNEL==\"event*\""] + keys + [assignment(access)]).joined(separator: ", ")
    }

    /// `text` on one comment line.
    private static func comment(_ text: String) -> String {
        "\"" + String(text.map { $0.isNewline ? " " : $0 }) + "\""
    }
}
