import GuardProtocol
import SystemPackage
import Testing
import VolumeGuardCore

@testable import InputDevices

@Suite("Why a device cannot be opened, and the fix")
struct DeviceProblemTests {
    let shutter = InputDeviceInfo(node: "/dev/input/event3", name: "AB Shutter3 Consumer Control", vendor: 0x2717, product: 0x40, keys: [115])

    @Test("Permission denied: the udev rule, and the input group with its cost")
    func permission() {
        for errno in [Errno.permissionDenied, .notPermitted] {
            let problem = DeviceProblem(errno, node: shutter.node, info: shutter)
            #expect(problem.error == "permission denied")
            #expect(problem.fix.contains("volume-guard devices --udev-rule | sudo tee /etc/udev/rules.d/70-volume-guard.rules"))
            #expect(problem.fix.contains("sudo udevadm control --reload && sudo udevadm trigger --subsystem-match=input"))
            #expect(problem.fix.contains("usermod -aG input"))
            #expect(problem.fix.contains("every key"))
            #expect(problem.fix.contains("AB Shutter3 Consumer Control (2717:0040)"))
        }
    }

    @Test("Busy: another program grabbed it, and how to find which")
    func busy() {
        let problem = DeviceProblem(.resourceBusy, node: shutter.node, info: shutter)
        #expect(problem.error == "another program grabbed it")
        #expect(problem.fix.contains("fuser -v /dev/input/event3"))
    }

    @Test("Gone: ENOENT, ENODEV, ENXIO")
    func gone() {
        for errno in [Errno.noSuchFileOrDirectory, .operationNotSupportedByDevice, .noSuchAddressOrDevice] {
            let problem = DeviceProblem(errno, node: shutter.node, info: shutter)
            #expect(problem.error == "the device is gone")
            #expect(problem.fix.contains("AB Shutter3 Consumer Control"))
        }
    }

    @Test("Anything else: the system's words for it")
    func other() {
        let problem = DeviceProblem(.ioError, node: shutter.node, info: shutter)
        #expect(problem.error == "input/output error")
        #expect(problem.fix.contains("/dev/input/event3"))
    }
}
