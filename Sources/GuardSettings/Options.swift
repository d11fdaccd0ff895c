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
    /// Where presses come from: the sink, input devices, or both.
    public var source: SourceSelection?
    /// The input devices to take keys from (`DeviceMatch`, as written).
    public var devices: [String]?
    /// Keys besides the volume keys that are presses when a device sends them (`KEY_ENTER`).
    public var keys: [String]?
    /// How long, in milliseconds, a device's key stays down before it is a hold.
    public var holdDelay: Int?
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

    /// Every setting but `actions`, in the order the config file's documentation lists them.
    public static let settings: [Setting] = [
        .text("sink", \.sink, "a sink name or pattern"),
        .bool("guard-mute", \.guardMute),
        .number("step", \.step, unit: "percent", check: problem(step:)),
        .number("clamp-margin", \.clampMargin, unit: "percent", check: problem(clampMargin:)),
        .whole("history", \.history, unit: nil, check: problem(history:)),
        .text("socket", \.socket, "a path"),
        .text("server", \.server, "a server address"),
        .choice("log-level", \.logLevel),
        .choice("mode", \.mode),
        .whole("repeat-period", \.repeatPeriod, unit: "milliseconds", check: problem(milliseconds:)),
        .whole("repeat-delay", \.repeatDelay, unit: "milliseconds", check: problem(milliseconds:)),
        .whole("double-window", \.doubleWindow, unit: "milliseconds", check: problem(milliseconds:)),
        .text("http", \.http, "an address", check: ListenAddress.problem),
        .list("http-origins", \.httpOrigins, "a list of origins", check: problem(origins:)),
        .choice("source", \.source),
        .list("devices", \.devices, "a list of devices", check: problem(devices:)),
        .list("keys", \.keys, "a list of key names", check: problem(keys:)),
        .whole("hold-delay", \.holdDelay, unit: "milliseconds", check: problem(milliseconds:)),
    ]

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

    // MARK: - Limits, shared by the file and the flags

    /// What is wrong with a key step, or nil.
    static func problem(step: Double) -> String? {
        (0.1...100).contains(step) ? nil : "must be between 0.1 and 100 (percent)"
    }

    /// What is wrong with a clamp margin, or nil. Above 25 % the held level would barely be the user's.
    static func problem(clampMargin: Double) -> String? {
        clampMargin > 0 && clampMargin <= 25 ? nil : "must be more than 0 and at most 25 (percent)"
    }

    /// What is wrong with a gesture threshold, or nil. No key repeats faster than every 10 ms, and presses
    /// more than 5 s apart are no gesture a person makes.
    static func problem(milliseconds: Int) -> String? {
        (10...5000).contains(milliseconds) ? nil : "must be between 10 and 5000 (milliseconds)"
    }

    /// What is wrong with a history length, or nil.
    static func problem(history: Int) -> String? {
        let range = DaemonConfiguration.historyCapacities
        return range.contains(history) ? nil : "must be between \(range.lowerBound) and \(range.upperBound) (presses)"
    }

    /// What is wrong with a list of web page origins, or nil.
    static func problem(origins: [String]) -> String? {
        origins.lazy.compactMap(WebOrigin.problem).first
    }

    /// What is wrong with a list of input devices, or nil.
    static func problem(devices: [String]) -> String? {
        devices.lazy.compactMap(DeviceMatch.problem).first
    }

    /// What is wrong with a list of key names, or nil: each must be a key the kernel has.
    static func problem(keys: [String]) -> String? {
        keys.first { KeyNames.code($0) == nil }.map { "\"\($0)\" is not a key the kernel knows (KEY_ENTER, KEY_PAGEUP, BTN_LEFT, …)" }
    }

    /// What is wrong with a sink name, path or address, or nil.
    public static func problem(text: String) -> String? {
        text.isEmpty ? "must not be empty" : nil
    }

    /// Raw volume units (65536 = 100 %) for `percent`, at least one.
    public static func raw(percent: Double) -> UInt32 {
        max(1, UInt32((percent / 100 * Double(SinkVolume.norm)).rounded()))
    }
}
