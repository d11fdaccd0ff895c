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
/// take it. `--udev-rule` prints the rule that lets the user read the configured ones, by the seat or by
/// the user's group (`--access`).
public struct Devices: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        abstract: "List the input devices with keys: whether this user can read them, the daemon grabbed them, the configuration takes them.",
        discussion: """
            The devices come from sysfs (/sys/class/input), which anyone can read; none is opened. \
            The configuration is the config file's `devices` and `keys`, or --devices and --keys as `run` takes them.
            --udev-rule prints a udev rule that lets this user read exactly the configured devices (keyboards are root's: a \
            program that can read one can log every key), and says where it goes and how to apply it. --access says how: \
            seat gives them to the user logged in at the machine's seat (systemd's uaccess tag: a desktop, a kiosk's automatic \
            login), for as long as that session is active; group gives them to this user's primary group (GROUP=, MODE=0640), \
            whether anyone is logged in or not (a user service started at boot, with lingering). By default it is seat when this \
            user has an active session on a seat now (logind's record of the user, /run/systemd/users/UID, says ACTIVE_SEATS=), \
            else group; standard error says which, and why. Run it as the user the service runs as (under sudo, the rule is for the user who ran sudo).
            --json prints one object per device: node, name, ids, bus (usb, bluetooth, …), address (its Bluetooth address, absent when it has none), stable_paths, readable, grabbed (absent when no daemon \
            answers), state (the daemon's, when it reports the device), matches (the configured devices it meets), keys (the \
            volume keys and configured keys it has), key_count, and fix (for a configured device this user cannot read).
            Exit codes: 0, also when there is no device; 2 for --udev-rule with no device configured, or a mistake in the config file.
            """
    )

    @OptionGroup var socket: SocketOptions

    @OptionGroup var input: DeviceOptions

    @Flag(help: "Print a udev rule for the configured devices instead (it names the file it goes in).")
    var udevRule = false

    @Option(
        name: .customLong("access"),
        help: """
            With --udev-rule, whom the rule gives the devices to: seat (the user logged in at the machine's seat) or group (this \
            user's primary group, with no login needed). Default: seat when this user has an active session on a seat now, else group.
            """)
    var ruleAccess: RuleAccess?

    @Flag(help: "Print the devices as a JSON array.")
    var json = false

    public func validate() throws {
        if let (key, problem) = flags.problems.first { throw ValidationError("--\(key) \(problem)") }
        if udevRule && json { throw ValidationError("--udev-rule prints a rule file, not JSON") }
        if ruleAccess != nil && !udevRule { throw ValidationError("--access is for --udev-rule") }
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
            let (access, notes) = Self.chosenAccess(asked: ruleAccess)
            notes.forEach(printError)
            print(UdevRule.text(for: matches, devices: devices, access: access), terminator: "")
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
            print(String(decoding: WireFormat.line(listings), as: UTF8.self), terminator: "")
            return
        }
        var lines = listings.isEmpty ? [Self.noDevices] : listings.flatMap(\.text)
        let absent = matches.absent(among: devices)
        if !absent.isEmpty {
            lines.append("configured, not present: " + absent.map(\.description).joined(separator: ", "))
        }
        if daemon == nil && !listings.isEmpty {
            lines.append("no daemon answers at \(socketPath): whether a device is grabbed is not known")
        }
        print(lines.joined(separator: "\n"))
    }

    /// Whom the rule gives the devices to: `asked`, or by default `UdevRule.Access.standard` for the user
    /// (under sudo, the one who ran it); and the lines for standard error: which one, and why, when it is
    /// the default, and a warning when the group is not this user's alone.
    private static func chosenAccess(asked: RuleAccess?) -> (UdevRule.Access, notes: [String]) {
        let invoking = InvokingUser.current()
        let (uid, user, gid, group) = (invoking.uid, invoking.name, invoking.gid, invoking.groupValue)
        let seats = LogindUser.activeSeats(uid: uid)
        let chosen: UdevRule.Access =
            switch asked {
            case .seat?: .seat
            case .group?: .group(group)
            case nil: .standard(onSeat: !seats.isEmpty, group: group)
            }
        var notes: [String] = []
        if asked == nil && seats.isEmpty {
            notes.append(
                "volume-guard: a rule for \(user)'s group: \(user) has no active session on a seat now (logind's "
                    + "\(LogindUser.recordPath(uid: uid))), as with a service started at boot; for the user logged in at the machine: --access seat")
        } else if asked == nil {
            notes.append(
                "volume-guard: a rule for the seat: \(user) has an active session on \(seats.joined(separator: ", ")) now; "
                    + "for a service that starts with no one logged in: --access group")
        }
        guard chosen != .seat else { return (chosen, notes) }
        let others = members(of: gid).filter { $0 != user }
        if !others.isEmpty {
            let named = others.count > 5 ? others.prefix(5).joined(separator: ", ") + " and \(others.count - 5) more" : others.joined(separator: ", ")
            notes.append("volume-guard: warning: the group \(group) is not \(user)'s alone: \(named) could read these devices too")
        }
        if uid == 0 {
            notes.append("volume-guard: warning: this is root: the rule gives the devices to root's group; run it as the service's user")
        }
        return (chosen, notes)
    }

    /// The users in the group `gid`, by name: its members, and those whose primary group it is.
    private static func members(of gid: gid_t) -> [String] {
        var names: Set<String> = []
        if let group = getgrgid(gid), var member = group.pointee.gr_mem {
            while let name = member.pointee {
                names.insert(String(cString: name))
                member += 1
            }
        }
        setpwent()
        defer { endpwent() }
        while let entry = getpwent() {
            if entry.pointee.pw_gid == gid { names.insert(String(cString: entry.pointee.pw_name)) }
        }
        return names.sorted()
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

/// `--access`: whom `--udev-rule`'s rule gives the devices to.
enum RuleAccess: String, CaseIterable, ExpressibleByArgument {
    case seat, group
}
