import Foundation
import Testing
import VolumeGuardCore

@testable import InputDevices

@Suite("The input directory, from a fake sysfs and /dev")
struct InputDirectoryTests {
    @Test("Event devices with keys, by event number, with their names, ids, bus, address, keys and stable paths")
    func scan() throws {
        let tree = try FakeTree()
        defer { tree.remove() }
        try tree.sysfsDevice("event10", name: "Presenter", vendor: "1d57", product: "ad03", keys: "1 0")
        try tree.sysfsDevice(
            "event2", name: "AB Shutter3 Keyboard", vendor: "2717", product: "0040", bus: "0005", uniq: "2a:07:98:10:34:9c", keys: "10000000")
        try tree.sysfsDevice("event3", name: "AB Shutter3 Consumer Control", vendor: "2717", product: "0040", keys: "8000000000000 0")
        // A mouse's event device has no keys (its buttons are keys, but this one has none); inputN and
        // mouseN are not event devices.
        try tree.sysfsDevice("event4", name: "Touchpad", vendor: "0001", product: "0002", keys: "0")
        try tree.write("sysfs/input3/name", "AB Shutter3 Keyboard\n")
        try tree.write("sysfs/mouse0/dev", "13:32\n")
        try tree.directory("dev/input/by-id")
        try tree.directory("dev/input/by-path")
        try tree.link("dev/input/by-id/usb-Presenter-event-kbd", to: "../event10")
        try tree.link("dev/input/by-path/pci-0000:00:14.0-usb-0:2:1.0-event-kbd", to: "../event10")
        try tree.link("dev/input/by-path/platform-elsewhere-event", to: tree.path("dev/input/event3"))
        try tree.link("dev/input/by-id/dangling", to: "../event99")

        let devices = InputDirectory.scan(devices: tree.path("dev/input"), sysfs: tree.path("sysfs"))

        #expect(devices.map(\.node) == ["event2", "event3", "event10"].map { tree.path("dev/input/\($0)") })
        #expect(
            devices[0]
                == InputDeviceInfo(
                    node: tree.path("dev/input/event2"), name: "AB Shutter3 Keyboard", vendor: 0x2717, product: 0x40, bus: 5,
                    uniq: "2a:07:98:10:34:9c", keys: [28]))
        #expect(devices[0].address == "2a:07:98:10:34:9c")
        #expect((devices[2].bus, devices[2].uniq) == (0, ""), "a device whose sysfs has no bustype and no uniq is still listed")
        #expect(devices[1].keys == [115])
        #expect(devices[1].stablePaths == [tree.path("dev/input/by-path/platform-elsewhere-event")])
        #expect(
            devices[2].stablePaths == [
                tree.path("dev/input/by-id/usb-Presenter-event-kbd"), tree.path("dev/input/by-path/pci-0000:00:14.0-usb-0:2:1.0-event-kbd"),
            ])
        #expect(devices[2].ids == "1d57:ad03")
    }

    @Test("No /dev/input, no by-id or by-path, no sysfs: nothing, and no error")
    func nothing() throws {
        let tree = try FakeTree()
        defer { tree.remove() }
        #expect(InputDirectory.scan(devices: tree.path("dev/input"), sysfs: tree.path("sysfs")) == [])
        try tree.sysfsDevice("event0", name: "Power Button", vendor: "0000", product: "0001", keys: "10000000000000 0")
        let devices = InputDirectory.scan(devices: tree.path("dev/input"), sysfs: tree.path("sysfs"))
        #expect(devices.map(\.name) == ["Power Button"])
        #expect(devices[0].stablePaths == [])
    }

    @Test("A device half gone (a file missing) or with files not as the kernel writes them is left out")
    func halfGone() throws {
        let tree = try FakeTree()
        defer { tree.remove() }
        try tree.sysfsDevice("event1", name: "Gone", vendor: "0001", product: "0002", keys: "1 0")
        try tree.remove("sysfs/event1/device/capabilities/key")
        try tree.sysfsDevice("event2", name: "Odd", vendor: "zzzz", product: "0002", keys: "1 0")
        try tree.sysfsDevice("event3", name: "Kept", vendor: "0001", product: "0002", keys: "1 0")
        #expect(InputDirectory.scan(devices: tree.path("dev/input"), sysfs: tree.path("sysfs")).map(\.name) == ["Kept"])
    }

    @Test("A name keeps its own spaces and quotes; only the kernel's newline goes")
    func names() throws {
        let tree = try FakeTree()
        defer { tree.remove() }
        try tree.sysfsDevice("event0", name: " Remote \"X\" ", vendor: "0001", product: "0002", keys: "1 0")
        #expect(InputDirectory.scan(devices: tree.path("dev/input"), sysfs: tree.path("sysfs")).map(\.name) == [" Remote \"X\" "])
    }

    @Test("eventN names, and nothing else")
    func eventNumbers() {
        #expect(InputDirectory.eventNumber("event0") == 0)
        #expect(InputDirectory.eventNumber("event12") == 12)
        for other in ["event", "events", "event+1", "event-1", "event1a", "input3", "mouse0", "by-id"] {
            #expect(InputDirectory.eventNumber(other) == nil, "\(other)")
        }
    }

    @Test("udev's relative link targets resolve from the link's directory")
    func linkTargets() {
        #expect(StableLinks.resolve("../event3", in: "/dev/input/by-id") == "/dev/input/event3")
        #expect(StableLinks.resolve("/dev/input/event4", in: "/dev/input/by-path") == "/dev/input/event4")
        #expect(StableLinks.resolve("./../../input/./event5", in: "/dev/input/by-id") == "/dev/input/event5")
    }
}
