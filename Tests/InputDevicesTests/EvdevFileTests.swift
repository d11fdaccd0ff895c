import Glibc
import SystemPackage
import Testing

@testable import InputDevices

/// Without an input device (these machines have none) only the failures can be tried: the ioctls
/// themselves are tried in the VM (scripts/input-vm).
@Suite("An event node's file, without a device")
struct EvdevFileTests {
    /// What an ioctl that the file does not know is refused with: ENOTTY from the kernel, but ENOSYS from
    /// qemu-user (`scripts/test --arch arm64` says so in VOLUME_GUARD_TEST_QEMU_USER), which answers the
    /// ioctls it cannot translate, evdev's among them, itself.
    static let refusal: Errno = getenv("VOLUME_GUARD_TEST_QEMU_USER") == nil ? .inappropriateIOCTLForDevice : .noFunction

    @Test("A node that is not there: ENOENT")
    func missing() {
        #expect(throws: Errno.noSuchFileOrDirectory) { try EvdevFile.open("/dev/input/event-none") }
    }

    @Test("A file that is no event node refuses the ioctls (ENOTTY) and reads nothing")
    func notAnEventNode() throws {
        let file = try EvdevFile.open("/dev/null")
        defer { file.close() }
        #expect(file.node == "/dev/null")
        #expect(throws: Self.refusal) { try file.keysDown() }
        #expect(throws: Self.refusal) { try file.grab() }
        #expect(throws: Self.refusal) { try file.ungrab() }
        #expect(throws: Self.refusal) { try file.info() }
        #expect(try file.read() == [])
    }

    @Test("The event vocabulary is the kernel's")
    func vocabulary() {
        #expect(InputEvent.synchronization == 0 && InputEvent.key == 1)
        #expect(InputEvent.report == 0 && InputEvent.dropped == 3)
        #expect(InputEvent(seconds: 1, microseconds: 2, type: 1, code: 115, value: 1).isKey)
        #expect(InputEvent(seconds: 1, microseconds: 2, type: 0, code: 3, value: 0).isDropped)
    }
}
