import SystemPackage
import VolumeGuardCore

/// Why the input device `info` at `node` cannot be opened or grabbed, and what the user can do about
/// it, for the log, `status` and systemd's status line: `error` short ("permission denied"), `fix` a
/// sentence with the commands to run.
public func refusal(_ errno: Errno, node: String, info: InputDeviceInfo) -> (error: String, fix: String) {
    switch errno {
    case .permissionDenied, .notPermitted:
        // Keyboards are root's and the input group's on purpose (any reader can log every key), and
        // systemd's own rules give the logged-in user joysticks, not keyboards.
        (
            "permission denied",
            "let this user read \(info.name) (\(info.ids)) with a udev rule for the configured devices: "
                + "`volume-guard devices --udev-rule | sudo tee \(UdevRule.path)`, then "
                + "`\(UdevRule.applyCommand)`; or, quicker but for every keyboard, so that any program of "
                + "the user can log every key typed: `sudo usermod -aG input $USER`, and log in again"
        )
    case .resourceBusy:
        (
            "another program grabbed it",
            "stop the program that holds \(node) (another volume-guard, keyd, evsieve, kmonad, interception-tools, …): "
                + "`sudo fuser -v \(node)` lists the programs that have it open"
        )
    // ENODEV is swift-system's operationNotSupportedByDevice.
    case .noSuchFileOrDirectory, .operationNotSupportedByDevice, .noSuchAddressOrDevice:
        (
            "the device is gone",
            "connect \(info.name) again (wake a Bluetooth remote with a key, or pair it again); it is taken when it appears"
        )
    default:
        (
            errno.description.prefix(1).lowercased() + errno.description.dropFirst(),
            "volume-guard tries again; the kernel's log (`sudo dmesg`) may say what is wrong with \(node)"
        )
    }
}
