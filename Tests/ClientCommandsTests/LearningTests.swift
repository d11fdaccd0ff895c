import GuardProtocol
import Testing
import VolumeGuardCore

@testable import ClientCommands

/// An AB Shutter3's two devices, with a Bluetooth address, and a keyboard and a mouse beside them.
enum Present {
    static let address = "2a:07:98:10:34:9c"
    static let consumer = InputDeviceInfo(
        node: "/dev/input/event6", name: "AB Shutter3 Consumer Control", vendor: 0x2717, product: 0x0040, bus: 5, uniq: address, keys: [115, 114])
    static let keyboard = InputDeviceInfo(
        node: "/dev/input/event5", name: "AB Shutter3 Keyboard", vendor: 0x2717, product: 0x0040, bus: 5, uniq: address, keys: [28])
    static let laptop = InputDeviceInfo(node: "/dev/input/event2", name: "AT Translated Set 2 keyboard", vendor: 1, product: 1, bus: 0x11, keys: [28, 30])
    static let mouse = InputDeviceInfo(node: "/dev/input/event3", name: "USB Mouse", vendor: 0x46d, product: 0xc077, bus: 3, keys: [0x110, 0x111])
    static let all = [laptop, mouse, keyboard, consumer]
}

@Suite("learn: what it hears, and when it is done")
struct LearningTests {
    var learning = Learning(limits: .init(first: .seconds(60), next: .seconds(5), count: nil))

    @Test("The first key is waited for; each new key gives another wait; a key pressed again does not")
    mutating func deadlines() {
        #expect(learning.deadline == .seconds(60))
        #expect(!learning.isOver(at: .seconds(59)))
        #expect(learning.handle(.keyDown(Present.consumer, key: 115), at: .seconds(10)).count == 1)
        #expect(learning.deadline == .seconds(15))
        #expect(learning.handle(.keyDown(Present.consumer, key: 115), at: .seconds(12)).isEmpty, "pressed again: nothing new")
        #expect(learning.deadline == .seconds(15), "and no longer wait: a remote pressed over and over still ends the run")
        #expect(learning.handle(.keyDown(Present.keyboard, key: 28), at: .seconds(14)).count == 1)
        #expect(learning.isOver(at: .seconds(19)) == true)
        #expect(learning.learned.map(\.key) == [115, 28])
        #expect(learning.handle(.keyDown(Present.laptop, key: 30), at: .seconds(20)).isEmpty, "nothing is learned once it is over")
    }

    @Test("Nothing pressed: over at the first wait, with nothing learned")
    func nothing() {
        let learning = Learning(limits: .init(first: .seconds(3), next: .seconds(5), count: nil))
        #expect(learning.isOver(at: .seconds(3)))
        #expect(learning.learned.isEmpty)
    }

    @Test("A key down when its device was opened counts once it stayed down half a second; the Enter that started learn does not")
    mutating func downAtOpen() {
        _ = learning.handle(.keyDownAtOpen(Present.laptop, key: 28), at: .zero)
        _ = learning.handle(.keyDownAtOpen(Present.consumer, key: 115), at: .zero)
        #expect(learning.handle(.tick, at: .milliseconds(100)).isEmpty)
        _ = learning.handle(.keyUp(Present.laptop, key: 28), at: .milliseconds(150))
        let due = learning.handle(.tick, at: .milliseconds(500))
        #expect(due.count == 1)
        #expect(learning.learned.map(\.key) == [115])
        #expect(learning.handle(.tick, at: .milliseconds(600)).isEmpty, "once")
        #expect(learning.learned.map(\.device) == [Present.consumer])
    }

    @Test("--count ends it after that many keys, once the desktop's change of the sink would have come; --next 0 waits as long")
    func count() {
        var learning = Learning(limits: .init(first: .seconds(60), next: .seconds(5), count: 1))
        _ = learning.handle(.keyDown(Present.consumer, key: 115), at: .seconds(1))
        #expect(!learning.isOver(at: .milliseconds(1_500)))
        #expect(learning.isOver(at: .seconds(2)))
        var quick = Learning(limits: .init(first: .seconds(60), next: .zero, count: nil))
        _ = quick.handle(.keyDown(Present.consumer, key: 115), at: .seconds(1))
        #expect(quick.deadline == .seconds(2))
    }

    @Test("The listening sleeps until the next moment due: a key held since the open, else the end")
    mutating func wakeUp() {
        #expect(learning.wakeUp == .seconds(60), "nothing held: the first wait's end")
        _ = learning.handle(.keyDownAtOpen(Present.consumer, key: 115), at: .seconds(1))
        #expect(learning.wakeUp == .milliseconds(1_500), "when the key held since the open counts")
        _ = learning.handle(.tick, at: .milliseconds(1_500))
        #expect(learning.wakeUp == .milliseconds(6_500), "learned: the wait for another key")
        var counted = Learning(limits: .init(first: .seconds(60), next: .seconds(5), count: 1))
        _ = counted.handle(.keyDown(Present.consumer, key: 115), at: .seconds(1))
        #expect(counted.wakeUp == .seconds(2), "--count reached: once the desktop's change would have come")
    }

    @Test("A mouse's buttons are never learned; a remote's keys are")
    mutating func buttons() {
        #expect(learning.handle(.keyDown(Present.mouse, key: 0x110), at: .seconds(1)).isEmpty)
        #expect(Learning.isLearnable(115) && Learning.isLearnable(28) && Learning.isLearnable(0x160) && Learning.isLearnable(212))
        #expect(!Learning.isLearnable(0x110) && !Learning.isLearnable(0x130) && !Learning.isLearnable(0x2c0) && !Learning.isLearnable(0))
    }

    @Test("A change of the sink soon after a press is the desktop's doing; one with no press is a key learn cannot read")
    mutating func sink() {
        _ = learning.handle(.keyDown(Present.consumer, key: 115), at: .seconds(1))
        #expect(learning.handle(.sinkChanged(.up), at: .milliseconds(1_050)) == [.desktopReacted(index: 0, .up)])
        #expect(learning.learned[0].sinkChange == .up)
        #expect(learning.handle(.sinkChanged(.up), at: .milliseconds(1_100)).isEmpty, "the desktop's further changes are no news")
        var alone = Learning(limits: .init(first: .seconds(60), next: .seconds(5), count: nil))
        #expect(alone.handle(.sinkChanged(.down), at: .seconds(2)) == [.sinkAlone(.down)])
        #expect(alone.handle(.sinkChanged(.down), at: .seconds(3)).isEmpty, "each direction once")
        #expect(alone.deadline == .seconds(7), "a change heard on the sink is a key heard: another wait")
        var late = Learning(limits: .init(first: .seconds(60), next: .seconds(5), count: nil))
        _ = late.handle(.keyDown(Present.consumer, key: 115), at: .seconds(1))
        #expect(late.handle(.sinkChanged(.up), at: .seconds(3)) == [.sinkAlone(.up)], "two seconds later is not the key's doing")
    }

    @Test("A device heard the moment it appeared is told as the last scan sees it, with the links udev made after")
    mutating func refreshed() throws {
        let keypad = InputDeviceInfo(node: "/dev/input/event9", name: "USB Keypad", vendor: 0x1a2c, product: 0x0e24, bus: 3, keys: [28])
        var twin = keypad
        twin.node = "/dev/input/event8"
        var linked = keypad
        linked.stablePaths = ["/dev/input/by-id/usb-SEM_USB_Keypad-A-event-kbd"]
        _ = learning.handle(.keyDown(keypad, key: 28), at: .seconds(1))
        #expect(LearnedSetup(learning, present: [twin, linked])?.devices.first?.fragile == true, "by its node alone, before")
        learning.refresh([twin, linked])
        #expect(learning.learned.map(\.device) == [linked])
        let setup = try #require(LearnedSetup(learning, present: [twin, linked]))
        #expect(setup.devices.map(\.match) == [.path("/dev/input/by-id/usb-SEM_USB_Keypad-A-event-kbd")])
        var other = linked
        other.name = "Another Keypad"
        learning.refresh([twin, other])
        #expect(learning.learned.map(\.device) == [linked], "another device on its node is not it")
    }
}

@Suite("learn: the settings it writes")
struct LearnedSetupTests {
    func learned(_ presses: [(InputDeviceInfo, UInt16)], present: [InputDeviceInfo] = Present.all) -> LearnedSetup? {
        var learning = Learning(limits: .init(first: .seconds(60), next: .seconds(5), count: nil))
        for (offset, (device, key)) in presses.enumerated() { _ = learning.handle(.keyDown(device, key: key), at: .seconds(offset)) }
        return LearnedSetup(learning, present: present)
    }

    @Test("A remote's two keys: source input, the remote once by its address, and its other key besides volume up")
    func remote() throws {
        let setup = try #require(learned([(Present.consumer, UInt16(115)), (Present.keyboard, UInt16(28))]))
        #expect(setup.source == .input)
        #expect(setup.devices.map(\.match) == [.address(Present.address)])
        #expect(setup.settings.map(\.key) == ["source", "devices", "keys"])
        #expect(setup.settings.map(\.value) == ["\"input\"", "[\"\(Present.address)\"]", "[\"KEY_ENTER\"]"])
        #expect(setup.action(running: ["gphoto2", "--capture-image"]).map(\.value) == ["\"up\"", "[\"gphoto2\", \"--capture-image\"]", "1"])
        let enterFirst = try #require(learned([(Present.keyboard, UInt16(28))]))
        #expect(enterFirst.action(running: ["true"])[0].value == "\"KEY_ENTER\"", "the first key heard, by its name when it is no volume key")
    }

    @Test("Only volume keys: no `keys` to set")
    func volumeOnly() throws {
        let setup = try #require(learned([(Present.consumer, UInt16(115)), (Present.consumer, UInt16(114))]))
        #expect(setup.settings.map(\.key) == ["source", "devices"])
    }

    @Test("Nothing heard: nothing to set; only the sink heard: source sink")
    func sinkOnly() throws {
        #expect(learned([]) == nil)
        var learning = Learning(limits: .init(first: .seconds(60), next: .seconds(5), count: nil))
        _ = learning.handle(.sinkChanged(.up), at: .seconds(1))
        let setup = try #require(LearnedSetup(learning, present: []))
        #expect(setup.settings.map(\.key) == ["source"])
        #expect(setup.source == .sink)
        #expect(setup.sourceReason(sinkWatched: true, root: false).contains("sudo volume-guard learn"))
    }
}
