import GuardProtocol
import Logging
import VolumeGuardCore

/// The daemon's settings as one source gives them: the config file, or the command line. Each is nil
/// when that source does not set it, so that sources can be layered (flags over the file, the file over
/// the defaults) before `DaemonConfiguration` fills in what nobody set.
///
/// The file's keys and the flags share their names (`clamp-margin`, `--clamp-margin`), their kinds and
/// their limits, all declared once in `settings`, so that a value means the same wherever it is written.
///
/// Codable: `volume-guard config --json` prints the options the file makes.
public struct Options: Hashable, Sendable, Codable {
    /// A sink name or shell pattern; `SinkSelection.defaultSinkName` (or nil) follows the default sink, so
    /// that a flag can undo a file's `sink`.
    public var sink: String?
    /// Whether mute changes are presses and put back (true), or pass through (false).
    public var guardMute: Bool?
    /// The volume keys' step, in percent.
    public var step: Double?
    /// How far inside 0 % and 100 % the sink is held, in percent.
    public var clampMargin: Double?
    public var history: Int?
    public var socket: String?
    public var server: String?
    public var logLevel: Logger.Level?
    public var mode: GuardMode?
    /// Gesture thresholds in milliseconds: the longest interval between a held key's repeats, the
    /// longest delay before its first repeat, the longest gap between a double press's two presses.
    public var repeatPeriod: Int?
    public var repeatDelay: Int?
    public var doubleWindow: Int?
    /// The HTTP listener's address (`ListenAddress`); nil for no listener.
    public var http: String?
    /// The web pages (`WebOrigin`) the HTTP listener serves, and lets pause and resume.
    public var httpOrigins: [String]?
    public var httpTokens: Bool?
    /// Where presses come from: the sink, input devices, or both.
    public var source: SourceSelection?
    /// The input devices to take keys from (`DeviceMatch`, as written).
    public var devices: [String]?
    /// Keys besides the volume keys that are presses when a device sends them (`KEY_ENTER`).
    public var keys: [String]?
    /// How long, in milliseconds, a device's key stays down before it is a hold.
    public var holdDelay: Int?
    /// The MQTT broker (`BrokerAddress`, as written), and the keys beside it (`Options+Broker.swift`).
    public var mqtt: String?
    public var mqttUser: String?
    public var mqttPasswordFile: String?
    public var mqttCaFile: String?
    public var mqttCertFile: String?
    public var mqttKeyFile: String?
    public var mqttTopic: String?
    public var mqttCommands: Bool?
    public var mqttDiscovery: Bool?
    public var mqttDiscoveryPrefix: String?
    /// Commands to run on presses; only the config file has them.
    public var actions: [Action]?

    public init(
        sink: String? = nil, guardMute: Bool? = nil, step: Double? = nil, clampMargin: Double? = nil,
        history: Int? = nil, socket: String? = nil, server: String? = nil, logLevel: Logger.Level? = nil,
        mode: GuardMode? = nil, repeatPeriod: Int? = nil, repeatDelay: Int? = nil, doubleWindow: Int? = nil,
        http: String? = nil, httpOrigins: [String]? = nil, source: SourceSelection? = nil, devices: [String]? = nil,
        keys: [String]? = nil, holdDelay: Int? = nil, actions: [Action]? = nil
    ) {
        self.sink = sink
        self.guardMute = guardMute
        self.step = step
        self.clampMargin = clampMargin
        self.history = history
        self.socket = socket
        self.server = server
        self.logLevel = logLevel
        self.mode = mode
        self.repeatPeriod = repeatPeriod
        self.repeatDelay = repeatDelay
        self.doubleWindow = doubleWindow
        self.http = http
        self.httpOrigins = httpOrigins
        self.source = source
        self.devices = devices
        self.keys = keys
        self.holdDelay = holdDelay
        self.actions = actions
    }

    /// Every setting but `actions`, in the order the config file's documentation lists them, each with
    /// the one description of it (`Setting.help`).
    public static let settings: [Setting] =
        [
            .text(
                "sink", \.sink, "a sink name or pattern",
                help: """
                    The sink to guard: a name, or a shell pattern such as `bluez_output.*`, waited for while absent. \
                    `\(SinkSelection.defaultSinkName)`, the default, follows the default sink.
                    """),
            .bool(
                "guard-mute", \.guardMute,
                help: """
                    Whether mute changes are presses and are put back (the default), or pass through, so that the sink \
                    keeps the mute the user left it with.
                    """),
            .number(
                "step", \.step, unit: "percent",
                help: """
                    The volume keys' step in percent (\(format(steps.lowerBound)) to \(format(steps.upperBound))), to count a \
                    change that merges several steps as that many. By default it is learned from the presses seen.
                    """, check: problem(step:)),
            .number(
                "clamp-margin", \.clampMargin, unit: "percent",
                help: """
                    How far inside 0 % and 100 % the sink is held, in percent (more than 0, at most \(format(maximumClampMargin))). \
                    The default, one raw unit (0.0015 %), is inaudible, and enough for the guard to see a key that stops at \
                    100 % or 0 %. A device with coarse steps, such as Bluetooth absolute volume (0.8 % steps), may need one \
                    of its steps.
                    """, check: problem(clampMargin:)),
            .whole(
                "history", \.history, unit: nil,
                help: """
                    How many of the latest presses are kept for clients that resume with `since` \
                    (\(DaemonConfiguration.historyCapacities.lowerBound) to \(DaemonConfiguration.historyCapacities.upperBound); \
                    default \(DaemonConfiguration.defaultHistoryCapacity)).
                    """, needsRestart: true, check: problem(history:)),
            .text(
                "socket", \.socket, "a path",
                help: """
                    The control socket, for the daemon and its clients (default `$XDG_RUNTIME_DIR/volume-guard.sock`, or \
                    `/tmp/volume-guard-UID/volume-guard.sock` without `XDG_RUNTIME_DIR`). `VOLUME_GUARD_SOCKET` stands for \
                    `--socket`.
                    """, needsRestart: true),
            .text(
                "server", \.server, "a server address",
                help: "The audio server, in libpulse's syntax (default: `PULSE_SERVER`, then the session's).", needsRestart: true),
            .choice(
                "log-level", \.logLevel,
                help: "How much the log says: `trace`, `debug`, `info` (the default), `notice`, `warning`, `error` or `critical`."),
            .choice(
                "mode", \.mode,
                help: """
                    When to guard: `always` (the default), or `while-subscribed`: only while at least one client is \
                    subscribed, so that the keys act normally when no program listens.
                    """),
            .whole(
                "repeat-period", \.repeatPeriod, unit: "milliseconds",
                help: "Gestures: the longest interval between a held key's repeats, \(milliseconds(default: \.repeatPeriod)).",
                check: problem(milliseconds:)),
            .whole(
                "repeat-delay", \.repeatDelay, unit: "milliseconds",
                help: "Gestures: the longest delay before a held key's first repeat, \(milliseconds(default: \.repeatDelay)).",
                check: problem(milliseconds:)),
            .whole(
                "double-window", \.doubleWindow, unit: "milliseconds",
                help: "Gestures: the longest gap between the two presses of a double press, \(milliseconds(default: \.doubleWindow)).",
                check: problem(milliseconds:)),
        ] + httpSettings + [
            .choice(
                "source", \.source,
                help: """
                    Where presses come from: `sink` (the default: changes of the default sink's volume and mute), `input` \
                    (the keys of the devices in `devices`, read from /dev/input; no audio server needed) or `both`.
                    """, needsRestart: true),
            .list(
                "devices", \.devices, "a list of devices",
                help: """
                    The input devices to take keys from, each grabbed so that no other program sees its keys: a name as \
                    `volume-guard devices` shows it (`AB Shutter3`, which also takes the parts the kernel makes of one \
                    remote), `vendor:product` in hex (`2717:0040`), a Bluetooth address (`2a:07:98:10:34:9c`, which tells \
                    identical remotes apart) or a path (`/dev/input/by-id/...`).
                    """, needsRestart: true, check: problem(devices:)),
            .list(
                "keys", \.keys, "a list of key names",
                help: """
                    Keys besides volume up, down and mute (always taken) that are presses when a device sends them, by the \
                    kernel's names (`KEY_ENTER`, `KEY_PAGEUP`).
                    """, needsRestart: true, check: problem(keys:)),
            .whole(
                "hold-delay", \.holdDelay, unit: "milliseconds",
                help: "Gestures: how long a device's key stays down before it is held, \(milliseconds(default: \.holdDelay)).",
                check: problem(milliseconds:)),
        ] + brokerSettings

    /// The setting whose key is `key`; there must be one.
    public static func setting(_ key: String) -> Setting {
        guard let setting = settings.first(where: { $0.key == key }) else { preconditionFailure("no setting \(key)") }
        return setting
    }

    /// These options, with every one that `winner` sets taken from it instead.
    public func overridden(by winner: Options) -> Options {
        var merged = self
        for setting in Self.settings {
            setting.take(from: winner, into: &merged)
        }
        merged.actions = winner.actions ?? actions
        return merged
    }

    /// What is wrong with the values set, by key, in the order of `settings`: the command line names
    /// each one's flag (`--` and the key). The config file checks each value as it reads it.
    public var problems: [(key: String, problem: String)] {
        Self.settings.compactMap { setting in setting.problem(in: self).map { (setting.key, $0) } }
    }
}
