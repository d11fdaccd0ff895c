import SystemPackage
import Testing
import VolumeGuardCore

@testable import InputDevices

@Suite("Why a device cannot be opened, and the fix")
struct RefusalTests {
    let shutter = InputDeviceInfo(node: "/dev/input/event3", name: "AB Shutter3 Consumer Control", vendor: 0x2717, product: 0x40, keys: [115])

    @Test("Permission denied: the udev rule, and the input group with its cost")
    func permission() {
        for errno in [Errno.permissionDenied, .notPermitted] {
            let (error, fix) = refusal(errno, node: shutter.node, info: shutter)
            #expect(error == "permission denied")
            #expect(fix.contains("volume-guard devices --udev-rule | sudo tee /etc/udev/rules.d/70-volume-guard.rules"))
            #expect(fix.contains("sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=input"))
            #expect(fix.contains("usermod -aG input"))
            #expect(fix.contains("every key"))
            #expect(fix.contains("AB Shutter3 Consumer Control (2717:0040)"))
        }
    }

    @Test("Busy: another program grabbed it, and how to find which")
    func busy() {
        let (error, fix) = refusal(.resourceBusy, node: shutter.node, info: shutter)
        #expect(error == "another program grabbed it")
        #expect(fix.contains("fuser -v /dev/input/event3"))
    }

    @Test("Gone: ENOENT, ENODEV, ENXIO")
    func gone() {
        for errno in [Errno.noSuchFileOrDirectory, .operationNotSupportedByDevice, .noSuchAddressOrDevice] {
            let (error, fix) = refusal(errno, node: shutter.node, info: shutter)
            #expect(error == "the device is gone")
            #expect(fix.contains("AB Shutter3 Consumer Control"))
        }
    }

    @Test("Anything else: the system's words for it")
    func other() {
        let (error, fix) = refusal(.ioError, node: shutter.node, info: shutter)
        #expect(error == "input/output error")
        #expect(fix.contains("/dev/input/event3"))
    }
}
