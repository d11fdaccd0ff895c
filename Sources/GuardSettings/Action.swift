import GuardProtocol
import VolumeGuardCore

/// A command the daemon runs on a press, or on one gesture of a key: `[[action]]` in the config file.
///
/// The command is an argument vector, run without a shell, so a sink name or anything else in the press
/// can never be taken for shell syntax; the press reaches it in environment variables instead. An
/// action that wants a shell says so (`shell = true`) and gets `/bin/sh -c`.
public struct Action: Hashable, Sendable, Codable {
    /// For the log: the config's `name`, else the program's (`env` for `/usr/bin/env`).
    public var name: String
    /// The program and its arguments.
    public var command: [String]
    /// The presses it runs on: of these volume keys (from either source), these other keys of a device
    /// (nil: any), from this source only (nil: either), from this device only (a name, matched as
    /// `DeviceMatch` matches names; nil: any).
    public var directions: Set<Direction>
    public var keys: Set<UInt16>?
    public var source: Source?
    public var device: String?
    /// Every press (`press`), or one gesture of the key: its tap, its hold (at the hold's start), its
    /// double press. One key may then do several jobs, each action running alone for its gesture.
    public var gesture: TriggerKind
    /// How long it may run before its whole process group is killed.
    public var timeout: Duration
    /// How long after it starts a press does not start it again: a shutter remote bounces, and people
    /// press twice, yet one press should take one photo.
    public var cooldown: Duration

    public static let defaultTimeout: Duration = .seconds(10)
    /// The timeouts a user may configure, in seconds. An hour is enough for anything a key should
    /// start; what needs longer should be started as a service, not run.
    static let timeouts = 0.1...3600.0
    /// The cooldowns a user may configure, in seconds.
    static let cooldowns = 0.0...3600.0

    /// What is wrong with a timeout in seconds, or nil.
    public static func problem(timeout seconds: Double) -> String? {
        timeouts.contains(seconds) ? nil : "must be between \(Options.format(timeouts.lowerBound)) and \(Options.format(timeouts.upperBound)) (seconds)"
    }

    /// What is wrong with a cooldown in seconds, or nil.
    public static func problem(cooldown seconds: Double) -> String? {
        cooldowns.contains(seconds)
            ? nil : "must be between \(Options.format(cooldowns.lowerBound)) and \(Options.format(cooldowns.upperBound)) (seconds)"
    }

    /// The keys of an `[[action]]` table, in the order its errors list them, each with the one
    /// description of it: the config file takes these keys and no others, and volume-guard(5) shows
    /// these words (as `Setting.help` for the settings).
    public static let keys: [(key: String, help: String)] = [
        ("name", "What the log calls the action (default: the program's name)."),
        (
            "on",
            """
            The presses that start it: `up`, `down`, `mute`, a device's key (`KEY_ENTER`), or a list of them (default: every \
            press). The sink's `mute` press comes 15 ms after the change: a desktop's volume key at 0 % sets the mute \
            and then the volume, and the two are one `down` or `up` press.
            """
        ),
        ("source", "Only presses from this source: `sink`, `input` or `client`, a paired client's (default: any)."),
        ("device", "Only presses from this device, by name, matched as `devices` matches names (default: any)."),
        (
            "gesture",
            """
            When the key starts it: `press`, on every press, at once (default); `tap`, a press that none of the \
            gestures looked for on its key claimed; `hold`, once per hold, when it starts (`hold-delay` on a device, the \
            second repeat on the sink); `double`, two quick presses. With actions on the tap, the hold and the double of \
            one key, each runs alone. The sink's mute presses make no gesture. A key looks for the gestures of the \
            actions on gestures that take its presses (with none, for every gesture: the subscribers' clients configure \
            nothing here), and a tap waits only for those: on a key with no action on `double`, two quick presses are \
            two taps (a `cooldown` then runs one). An action on `tap` starts once no gesture looked for can still claim the \
            press: on a device, at the key's release where a hold is looked for, `double-window` (400 ms) after the press \
            where a double is, the later of the two with both; on the sink, `repeat-delay` (800 ms) after it where a hold \
            is, `double-window` where a double is, the longer with both; at once with neither. `volume-guard status` \
            shows the delay.
            """
        ),
        (
            "run",
            """
            Required: the program and its arguments, as a list, run without a shell, so that nothing in a press can \
            become shell syntax; with `shell = true`, one command line.
            """
        ),
        ("shell", "`true` to give `run` as one command line to `/bin/sh -c` instead (default `false`)."),
        (
            "timeout",
            """
            Seconds it may run, \(Options.format(timeouts.lowerBound)) to \(Options.format(timeouts.upperBound)) \
            (default \(defaultTimeout.components.seconds)): then its whole process group gets SIGTERM, and SIGKILL a \
            second later.
            """
        ),
        (
            "cooldown",
            """
            Seconds after it starts, \(Options.format(cooldowns.lowerBound)) to \(Options.format(cooldowns.upperBound)) \
            (default 0), in which a press does not start it again: a shutter remote bounces and people double-press, \
            yet one press should take one photo.
            """
        ),
    ]

    public init(
        name: String? = nil, command: [String], on directions: Set<Direction> = Set(Direction.allCases), keys: Set<UInt16>? = nil,
        source: Source? = nil, device: String? = nil, gesture: TriggerKind = .press, timeout: Duration = Self.defaultTimeout,
        cooldown: Duration = .zero
    ) {
        precondition(!command.isEmpty, "an action runs a program")
        self.name = name ?? command[0].split(separator: "/").last.map(String.init) ?? command[0]
        self.command = command
        self.directions = directions
        self.keys = keys
        self.source = source
        self.device = device
        self.gesture = gesture
        self.timeout = timeout
        self.cooldown = cooldown
    }

    /// An action that runs `script` with `/bin/sh -c`.
    public init(
        name: String? = nil, shell script: String, on directions: Set<Direction> = Set(Direction.allCases), keys: Set<UInt16>? = nil,
        source: Source? = nil, device: String? = nil, gesture: TriggerKind = .press, timeout: Duration = Self.defaultTimeout,
        cooldown: Duration = .zero
    ) {
        self.init(
            name: name ?? "sh", command: ["/bin/sh", "-c", script], on: directions, keys: keys, source: source, device: device, gesture: gesture,
            timeout: timeout, cooldown: cooldown)
    }

    /// The presses it takes, whatever their gesture.
    public var presses: PressMatch { PressMatch(directions: directions, keys: keys, source: source, device: device) }

    /// Whether `trigger` runs it: its gesture, of a key, source and device it takes.
    public func runs(on trigger: Trigger) -> Bool {
        trigger.kind == gesture && presses.takes(direction: trigger.direction, key: trigger.key, origin: trigger.origin)
    }

    /// The press or gesture, as the variables the command finds in its environment: those that apply to it
    /// (`VOLUME_GUARD_GESTURE` for a gesture only).
    public static func environment(for trigger: Trigger) -> [String: String] {
        var variables = [
            "VOLUME_GUARD_SEQ": String(trigger.seq),
            "VOLUME_GUARD_COUNT": String(trigger.count),
            "VOLUME_GUARD_SOURCE": trigger.origin.source.rawValue,
        ]
        variables["VOLUME_GUARD_GESTURE"] = trigger.kind == .press ? nil : trigger.kind.rawValue
        variables["VOLUME_GUARD_DIRECTION"] = trigger.direction?.rawValue
        variables["VOLUME_GUARD_KEY"] = trigger.key.map(KeyNames.name)
        switch trigger.origin {
        case .sink(let sink): variables["VOLUME_GUARD_SINK"] = sink
        case .device(let device):
            variables["VOLUME_GUARD_DEVICE"] = device.name
            variables["VOLUME_GUARD_DEVICE_PATH"] = device.node
        case .client(let name): variables["VOLUME_GUARD_CLIENT"] = name
        }
        return variables
    }
}

extension GestureUses {
    /// The gestures `actions` run on, each with the presses its action takes.
    public init(actions: [Action]) {
        self.init(actions.map { Use($0.gesture, $0.presses) })
    }
}
