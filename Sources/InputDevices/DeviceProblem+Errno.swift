import GuardProtocol
import SystemPackage
import VolumeGuardCore

extension DeviceProblem {
    /// Why `errno` keeps the input device `info` at `node` from being opened or grabbed, and its fix.
    public init(_ errno: Errno, node: String, info: InputDeviceInfo) {
        self =
            switch errno {
            case .permissionDenied, .notPermitted:
                // Keyboards are root's and the input group's on purpose (any reader can log every key), and
                // systemd's own rules give the logged-in user joysticks, not keyboards.
                DeviceProblem(
                    error: "permission denied",
                    fix: "let this user read \(info.name) (\(info.ids)) with a udev rule for the configured devices: "
                        + "`volume-guard devices --udev-rule | sudo tee \(UdevRule.path)`, then "
                        + "`\(UdevRule.applyCommand)`; or, quicker but for every keyboard, so that any program of "
                        + "the user can log every key typed: `sudo usermod -aG input $USER`, and log in again"
                )
            case .resourceBusy:
                DeviceProblem(
                    error: "another program grabbed it",
                    fix: "stop the program that holds \(node) (another volume-guard, keyd, evsieve, kmonad, interception-tools, …): "
                        + "`sudo fuser -v \(node)` lists the programs that have it open"
                )
            // ENODEV is swift-system's operationNotSupportedByDevice.
            case .noSuchFileOrDirectory, .operationNotSupportedByDevice, .noSuchAddressOrDevice:
                DeviceProblem(
                    error: "the device is gone",
                    fix: "connect \(info.name) again (wake a Bluetooth remote with a key, or pair it again); it is taken when it appears"
                )
            default:
                DeviceProblem(
                    error: errno.description.prefix(1).lowercased() + errno.description.dropFirst(),
                    fix: "volume-guard tries again; the kernel's log (`sudo dmesg`) may say what is wrong with \(node)"
                )
            }
    }
}
