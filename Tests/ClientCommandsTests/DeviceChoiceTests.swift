import Testing
import VolumeGuardCore

@testable import ClientCommands

@Suite("learn: the most specific match that survives a reconnect")
struct DeviceChoiceTests {
    func device(_ name: String, node: Int, ids: (UInt16, UInt16) = (0x2717, 0x0040), uniq: String = "", links: [String] = []) -> InputDeviceInfo {
        InputDeviceInfo(node: "/dev/input/event\(node)", name: name, vendor: ids.0, product: ids.1, uniq: uniq, stablePaths: links, keys: [115])
    }

    @Test("A Bluetooth remote: its address, though an identical remote is present")
    func address() {
        let mine = device("AB Shutter3 Consumer Control", node: 6, uniq: "2A:07:98:10:34:9C")
        let twin = device("AB Shutter3 Consumer Control", node: 8, uniq: "2a:07:98:10:34:9d")
        let choice = DeviceChoice(for: mine, among: [mine, twin])
        #expect(choice.match == .address("2a:07:98:10:34:9c"))
        #expect(!choice.fragile)
    }

    @Test("No address: the remote's name, which takes its parts, when no other device has a name it takes")
    func name() {
        let consumer = device("AB Shutter3 Consumer Control", node: 6)
        let keyboard = device("AB Shutter3 Keyboard", node: 5)
        let other = device("AB Shutter30", node: 7)
        #expect(DeviceChoice(for: consumer, among: [consumer, keyboard, other]).match == .name("AB Shutter3"))
        #expect(DeviceChoice.remoteName("AB Shutter3 Consumer Control") == "AB Shutter3")
        #expect(DeviceChoice.remoteName("Keyboard") == "Keyboard", "a name that is all suffix stays")
    }

    @Test("Identical devices with no address: a by-id link, else ids no other has, else by-path, else the node, said to be fragile")
    func twins() {
        let linked = device("Presenter", node: 3, links: ["/dev/input/by-path/pci-usb-0:1-event-kbd", "/dev/input/by-id/usb-Presenter-event-kbd"])
        let twin = device("Presenter", node: 4)
        #expect(DeviceChoice(for: linked, among: [linked, twin]).match == .path("/dev/input/by-id/usb-Presenter-event-kbd"))
        let otherIDs = device("Presenter", node: 3, ids: (1, 2))
        #expect(DeviceChoice(for: otherIDs, among: [otherIDs, twin]).match == .ids(vendor: 1, product: 2))
        let port = device("Presenter", node: 3, links: ["/dev/input/by-path/pci-usb-0:1-event-kbd"])
        #expect(DeviceChoice(for: port, among: [port, twin]).match == .path("/dev/input/by-path/pci-usb-0:1-event-kbd"))
        let bare = device("Presenter", node: 3)
        let choice = DeviceChoice(for: bare, among: [bare, twin])
        #expect(choice.match == .path("/dev/input/event3"))
        #expect(choice.fragile)
    }
}
