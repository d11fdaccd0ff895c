import Testing
import VolumeGuardCore

@testable import InputDevices

@Suite("The udev rule for the configured devices")
struct UdevRuleTests {
    /// The rule lines of `text`: the lines that are neither comments nor empty.
    private func rules(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }
    }

    /// Whether udev would tag the device named `name` by one of `lines`.
    private func tagged(_ name: String, by lines: [Substring]) -> Bool {
        lines.contains { line in UdevReader.value(of: "name", in: String(line)).map { UdevReader.matches($0, name) } ?? false }
    }

    @Test("Unless asked, a rule is for the seat when the user has an active session on one, else for the user's group")
    func standardAccess() {
        #expect(UdevRule.Access.standard(onSeat: true, group: "pi") == .seat)
        #expect(UdevRule.Access.standard(onSeat: false, group: "pi") == .group("pi"))
    }

    @Test("The header says where the file goes, why before 73-seat-late.rules, and how to apply it")
    func header() {
        let text = UdevRule.text(for: [.name("AB Shutter3")], devices: [])
        #expect(text.contains("/etc/udev/rules.d/70-volume-guard.rules"))
        #expect(text.contains("73-seat-late.rules"))
        #expect(text.contains("volume-guard devices --udev-rule --access seat | sudo tee /etc/udev/rules.d/70-volume-guard.rules"))
        #expect(text.contains("sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=input"))
        #expect(text.contains("reconnect"))
        #expect(text.hasSuffix("\n"))
        #expect(UdevRule.text(for: [.name("AB Shutter3")], devices: [], access: .seat) == text)
    }

    @Test("Each header names its choice and how to get the other")
    func choice() {
        let seat = UdevRule.text(for: [.name("AB Shutter3")], devices: [], access: .seat)
        let group = UdevRule.text(for: [.name("AB Shutter3")], devices: [], access: .group("booth"))
        #expect(seat.hasPrefix("# /etc/udev/rules.d/70-volume-guard.rules, from `volume-guard devices --udev-rule --access seat`."))
        #expect(seat.contains("no one logged in") && seat.contains("`volume-guard devices --udev-rule --access group`"))
        #expect(group.hasPrefix("# /etc/udev/rules.d/70-volume-guard.rules, from `volume-guard devices --udev-rule --access group`."))
        #expect(group.contains("the group \"booth\"") && group.contains("`volume-guard devices --udev-rule --access seat`"))
    }

    @Test("The group's header says why a group of the user's own and not input, and why after 50-udev-default.rules")
    func groupHeader() {
        let text = UdevRule.text(for: [.name("AB Shutter3")], devices: [], access: .group("booth"))
        #expect(text.contains("primary group") && text.contains("\"input\", whose members can read every keyboard"))
        #expect(text.contains("50-udev-default.rules"))
        #expect(text.contains("volume-guard devices --udev-rule --access group | sudo tee /etc/udev/rules.d/70-volume-guard.rules"))
        #expect(text.contains("sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=input"))
        #expect(!text.contains("uaccess"))
        #expect(text.hasSuffix("\n"))
    }

    @Test("The group's rule gives the same devices to the group, to read: GROUP and MODE 0640 in place of the tag")
    func group() {
        let presenter = InputDeviceInfo(node: "/dev/input/event5", name: "Presenter", vendor: 0x1d57, product: 0xad03, keys: [104, 109])
        let matches: [DeviceMatch] = [.name("AB Shutter3"), .ids(vendor: 0x2717, product: 0x40), .path("/dev/input/event5"), .path("/dev/input/by-id/gone")]
        let seat = rules(UdevRule.text(for: matches, devices: [presenter]))
        let group = rules(UdevRule.text(for: matches, devices: [presenter], access: .group("booth")))
        #expect(group.count == seat.count && group.count == 1 + DeviceMatch.partSuffixes.count + 2)
        for (seatLine, groupLine) in zip(seat, group) {
            #expect(groupLine == seatLine.dropLast(#"TAG+="uaccess""#.count) + #"GROUP="booth", MODE="0640""#, "\(groupLine)")
        }
        #expect(group.contains(#"SUBSYSTEM=="input", KERNEL=="event*", ATTRS{id/vendor}=="2717", ATTRS{id/product}=="0040", GROUP="booth", MODE="0640""#))
        for candidate in ["AB Shutter3", "AB Shutter3 Keyboard", "AB Shutter3 Consumer Control", "Presenter"] {
            #expect(tagged(candidate, by: group), "\(candidate)")
        }
        #expect(!tagged("AB Shutter30", by: group) && !tagged("AT Translated Set 2 keyboard", by: group))
    }

    @Test("A group is written by its name when udev reads it as that name, else by its id")
    func groupValue() {
        for name in ["pi", "booth", "booth-user", "Booth_2", "a.b"] {
            #expect(UdevRule.groupValue(name: name, gid: 1000) == name)
        }
        for name in [nil, "", "1001", "-x", "a b", "$x", "a%b", "a\"b", "ü", "a\\b"] {
            #expect(UdevRule.groupValue(name: name, gid: 1000) == "1000", "\(name ?? "nil")")
        }
    }

    @Test("A name tags the devices DeviceMatch takes, the remote's parts too, and no others")
    func names() {
        let names = [
            "AB Shutter3", "Remote \"Pro\"", "Ends in a backslash\\", "Glob *?[x] chars", "back\\slash * glob", "\\\"", "Tab\tand \u{7f}",
            "Trailing space ", "a|b",
        ]
        for name in names {
            let lines = rules(UdevRule.text(for: [.name(name)], devices: []))
            #expect(lines.count == 1 + DeviceMatch.partSuffixes.count)
            let candidates =
                [name, "\(name) Keyboard", "\(name) Consumer Control", "\(name) System Multi Axis", "\(name)0", "\(name) Keyboard 2", "x\(name)"]
                + ["\(name) Joystick", "AB Shutter", "Remote Pro", "Glob xyx chars", "Glob *?x chars", "back\\slash x glob", ""]
            for candidate in candidates {
                let device = InputDeviceInfo(node: "/dev/input/event0", name: candidate, vendor: 1, product: 2, keys: [115])
                #expect(tagged(candidate, by: lines) == DeviceMatch.name(name).matches(device), "\(name) and \(candidate)")
            }
        }
    }

    @Test("An address tags the remote of that address in either case, its parts too, and no identical remote")
    func address() {
        let lines = rules(UdevRule.text(for: [.address("2a:07:98:10:34:9c")], devices: []))
        #expect(lines.count == 1)
        let pattern = UdevReader.value(of: "uniq", in: String(lines[0]))
        #expect(pattern.map { UdevReader.matches($0, "2a:07:98:10:34:9c") } == true)
        #expect(pattern.map { UdevReader.matches($0, "2A:07:98:10:34:9C") } == true)
        #expect(pattern.map { UdevReader.matches($0, "2a:07:98:10:34:9d") } == false)
        #expect(pattern.map { UdevReader.matches($0, "") } == false)
        #expect(UdevReader.value(of: "name", in: String(lines[0])) == nil, "the address alone: both parts have it")
    }

    @Test("A | is matched by ?, since udev has no escape for it: the one broadening")
    func bar() {
        let lines = rules(UdevRule.text(for: [.name("a|b")], devices: []))
        #expect(tagged("a|b", by: lines))
        #expect(tagged("a b Keyboard", by: lines))
        #expect(!tagged("a", by: lines) && !tagged("b", by: lines))
    }

    @Test("Ids tag every device with them: vendor and product on one line, in lsusb's hex")
    func ids() {
        let lines = rules(UdevRule.text(for: [.ids(vendor: 0x2717, product: 0x40)], devices: []))
        #expect(lines == [#"SUBSYSTEM=="input", KERNEL=="event*", ATTRS{id/vendor}=="2717", ATTRS{id/product}=="0040", TAG+="uaccess""#])
    }

    @Test("A path tags the device there now, by its name and ids; a path with no device gets only a comment")
    func paths() {
        let presenter = InputDeviceInfo(
            node: "/dev/input/event5", name: "Presenter \"X\"", vendor: 0x1d57, product: 0xad03, stablePaths: ["/dev/input/by-id/usb-Presenter-event-kbd"],
            keys: [104, 109])
        let text = UdevRule.text(
            for: [.path("/dev/input/by-id/usb-Presenter-event-kbd"), .path("/dev/input/by-id/gone")], devices: [presenter])
        let lines = rules(text)
        #expect(
            lines == [
                #"SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="Presenter \"X\"", ATTRS{id/vendor}=="1d57", ATTRS{id/product}=="ad03", TAG+="uaccess""#
            ])
        #expect(UdevReader.value(of: "name", in: String(lines[0])) == "Presenter \"X\"")
        #expect(text.contains("# \"/dev/input/by-id/gone\": no device is there now"))
        #expect(rules(UdevRule.text(for: [.path("/dev/input/event5")], devices: [presenter])) == lines)
    }

    @Test("Every rule line names its device: never a rule for every input device")
    func neverBlanket() {
        let device = InputDeviceInfo(node: "/dev/input/event1", name: "*", vendor: 0, product: 0, keys: [115])
        let text = UdevRule.text(for: [.name("*"), .name("?"), .ids(vendor: 0, product: 0), .path("/dev/input/event1")], devices: [device])
        for line in rules(text) {
            #expect(line.hasPrefix(#"SUBSYSTEM=="input", KERNEL=="event*", ATTRS{"#), "\(line)")
            #expect(line.hasSuffix(#", TAG+="uaccess""#), "\(line)")
        }
        let lines = rules(text)
        #expect(tagged("*", by: lines) && tagged("? Keyboard", by: lines))
        #expect(!tagged("Keyboard", by: lines) && !tagged("x", by: lines) && !tagged("AT Translated Set 2 keyboard", by: lines))
    }
}
