import Testing

@testable import VolumeGuardCore

/// Two AB Shutter3 remotes alike in everything but their Bluetooth addresses, each two devices.
private enum Twins {
    static func part(_ name: String, node: Int, uniq: String) -> InputDeviceInfo {
        InputDeviceInfo(
            node: "/dev/input/event\(node)", name: "AB Shutter3 \(name)", vendor: 0x2717, product: 0x0040, bus: 5, uniq: uniq, keys: [115, 28])
    }
    static let first = [part("Keyboard", node: 5, uniq: "2a:07:98:10:34:9c"), part("Consumer Control", node: 6, uniq: "2a:07:98:10:34:9c")]
    static let second = [part("Keyboard", node: 7, uniq: "2a:07:98:10:34:9d"), part("Consumer Control", node: 8, uniq: "2a:07:98:10:34:9d")]
}

@Suite("Devices: how the config file names them")
struct DeviceMatchTests {
    @Test("A device is written as a path, ids, a Bluetooth address (either case) or else a name")
    func reading() {
        #expect(DeviceMatch("/dev/input/by-id/usb-remote-event-kbd") == .path("/dev/input/by-id/usb-remote-event-kbd"))
        #expect(DeviceMatch("2717:0040") == .ids(vendor: 0x2717, product: 0x0040))
        #expect(DeviceMatch("2A:07:98:10:34:9C") == .address("2a:07:98:10:34:9c"))
        #expect(DeviceMatch("2a:07:98:10:34:9c")?.description == "2a:07:98:10:34:9c")
        #expect(DeviceMatch("2a:07:98:10:34") == .name("2a:07:98:10:34"), "five pairs are no address")
        #expect(DeviceMatch("2a:07:98:10:34:9g") == .name("2a:07:98:10:34:9g"), "nor is a pair that is not hex")
        #expect(DeviceMatch("AB Shutter3") == .name("AB Shutter3"))
        #expect(DeviceMatch("") == nil)
    }

    @Test("A match no device present meets is configured, not present")
    func absent() {
        let matches = ["2a:07:98:10:34:9c", "2a:07:98:10:34:9d", "AB Shutter3", "Other Remote"].compactMap(DeviceMatch.init)
        #expect(matches.absent(among: Twins.first).map(\.description) == ["2a:07:98:10:34:9d", "Other Remote"])
        #expect(matches.absent(among: []) == matches, "nothing present")
    }

    @Test("An address takes both parts of its remote and neither of an identical remote's")
    func addressTellsTwinsApart() {
        let match = DeviceMatch("2a:07:98:10:34:9c")!
        #expect(Twins.first.allSatisfy(match.matches))
        #expect(!Twins.second.contains(where: match.matches))
        #expect((Twins.first + Twins.second).allSatisfy(DeviceMatch.name("AB Shutter3").matches), "a name takes both remotes")
        var upper = Twins.first[0]
        upper.uniq = "2A:07:98:10:34:9C"
        #expect(match.matches(upper), "BlueZ writes a Bluetooth LE remote's address in upper case")
        var none = Twins.first[0]
        none.uniq = ""
        #expect(!match.matches(none))
        #expect(none.address == nil)
        var serial = Twins.first[0]
        serial.uniq = "0123456789AB"
        #expect(serial.address == nil, "a USB serial number is no address")
    }

    @Test("A node opened after a scan is the scanned device only if its address is the same too")
    func openedIdentity() {
        #expect(Twins.first[0].isSameDevice(opened: Twins.first[0]))
        var twin = Twins.second[0]
        twin.node = Twins.first[0].node
        #expect(!Twins.first[0].isSameDevice(opened: twin))
    }

    @Test("The bus has the name people know it by")
    func busNames() {
        #expect(Twins.first[0].busName == "bluetooth")
        #expect(InputDeviceInfo(node: "/dev/input/event1", name: "x", vendor: 1, product: 1, bus: 3, keys: []).busName == "usb")
        #expect(InputDeviceInfo(node: "/dev/input/event1", name: "x", vendor: 1, product: 1, bus: 0x1f, keys: []).busName == "1f")
    }
}
