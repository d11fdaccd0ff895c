import ArgumentParser
import FoundationEssentials
import Glibc
import GuardProtocol
import GuardSettings
import InputDevices
import VolumeGuardClient
import VolumeGuardCore

/// `volume-guard devices`: the input devices with keys, as evtest lists them, with what a user setting
/// up a remote needs to know: can this user read it, has the daemon grabbed it, does the configuration
/// take it. `--udev-rule` prints the rule that lets the user read the configured ones.
public struct Devices: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        abstract: "List the input devices with keys: whether this user can read them, the daemon grabbed them, the configuration takes them.",
        discussion: """
            The devices come from sysfs (/sys/class/input), which anyone can read; none is opened. \
            The configuration is the config file's `devices` and `keys`, or --devices and --keys as `run` takes them.
            --udev-rule prints a udev rule that lets the user logged in at the machine read exactly the configured devices \
            (keyboards are root's: a program that can read one can log every key), and says where it goes and how to apply it.
            --json prints one object per device: node, name, ids, stable_paths, readable, grabbed (absent when no daemon \
            answers), state (the daemon's, when it reports the device), matches (the configured devices it meets), keys (the \
            volume keys and configured keys it has), key_count, and fix (for a configured device this user cannot read).
            Exit codes: 0, also when there is no device; 2 for --udev-rule with no device configured, or a mistake in the config file.
            """
    )

    @OptionGroup var socket: SocketOptions

    @OptionGroup var input: DeviceOptions

    @Flag(help: "Print a udev rule for the configured devices instead (it names the file it goes in).")
    var udevRule = false

    @Flag(help: "Print the devices as a JSON array.")
    var json = false

    public func validate() throws {
        if let (key, problem) = flags.problems.first { throw ValidationError("--\(key) \(problem)") }
        if udevRule && json { throw ValidationError("--udev-rule prints a rule file, not JSON") }
    }

    private var flags: Options {
        Options(devices: input.devices, keys: input.keys)
    }

    public func run() async throws {
        let options = try socket.configFile.options().overridden(by: flags)
        let matches = (options.devices ?? []).compactMap(DeviceMatch.init)
        let devices = InputDirectory.scan()
        if udevRule {
            guard !matches.isEmpty else {
                printError("volume-guard: no devices are configured: name them with --devices, or with `devices` in the config file")
                throw ExitCode(2)
            }
            print(UdevRule.text(for: matches, devices: devices), terminator: "")
            return
        }
        let socketPath = try socket.path
        let daemon = await Self.daemonDevices(at: socketPath)
        let volumeKeys = Direction.allCases.map(\.key)
        let keysOfInterest = volumeKeys + (options.keys ?? []).compactMap(KeyNames.code).filter { !volumeKeys.contains($0) }
        let listings = devices.map { device in
            DeviceListing(
                device, readable: access(device.node, R_OK) == 0, matches: matches, keysOfInterest: keysOfInterest, daemon: daemon)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(listings), as: UTF8.self))
            return
        }
        var lines = listings.isEmpty ? [Self.noDevices] : listings.flatMap(\.text)
        let absent = matches.filter { match in !devices.contains(where: match.matches) }
        if !absent.isEmpty {
            lines.append("configured, not present: " + absent.map(\.description).joined(separator: ", "))
        }
        if daemon == nil && !listings.isEmpty {
            lines.append("no daemon answers at \(socketPath): whether a device is grabbed is not known")
        }
        print(lines.joined(separator: "\n"))
    }

    /// What to say when there is no device with keys.
    private static var noDevices: String {
        access("/dev/input", F_OK) == 0
            ? "no input device with keys"
            : "no input devices: /dev/input does not exist (a Bluetooth remote's devices appear when it connects)"
    }

    /// The devices the running daemon reports (none with the `sink` source); nil when no daemon answers.
    private static func daemonDevices(at path: String) async -> [DeviceMessage]? {
        guard case .status(let status) = try? await GuardClient(socketPath: path).request(Request(.status)) else { return nil }
        return status.devices ?? []
    }
}
