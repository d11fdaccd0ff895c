import Glibc
import GuardProtocol
import Logging
import VolumeGuardCore

/// How the daemon is set up: where it listens and how it guards, every setting decided.
public struct DaemonConfiguration: Hashable, Sendable {
    /// The control socket's path.
    public var socketPath: String
    /// The audio server's address (libpulse syntax); nil for the default (`PULSE_SERVER`, then the
    /// session's `$XDG_RUNTIME_DIR/pulse/native`).
    public var server: String?
    public var core: GuardCore.Configuration
    /// Where presses come from, and the devices and keys the input source takes.
    public var source: SourceSelection
    public var input: InputSource.Configuration
    /// When presses make gestures, from either source.
    public var gestures: GestureDetector.Thresholds
    /// How many of the latest presses are kept for subscribers that resume with `since`.
    public var historyCapacity: Int
    public var mode: GuardMode
    public var actions: [Action]
    public var logLevel: Logger.Level
    /// The HTTP listener; nil (the default) for none.
    public var http: HTTPSettings?
    /// The MQTT broker; nil (the default) for none.
    public var broker: BrokerSettings?

    public init(
        socketPath: String, server: String? = nil, core: GuardCore.Configuration = .init(), source: SourceSelection = .sink,
        input: InputSource.Configuration = .init(), gestures: GestureDetector.Thresholds = .init(), historyCapacity: Int = Self.defaultHistoryCapacity,
        mode: GuardMode = .always, actions: [Action] = [],
        logLevel: Logger.Level = .info, http: HTTPSettings? = nil, broker: BrokerSettings? = nil
    ) {
        self.socketPath = socketPath
        self.server = server
        self.core = core
        self.source = source
        self.input = input
        self.gestures = gestures
        self.historyCapacity = historyCapacity
        self.mode = mode
        self.actions = actions
        self.logLevel = logLevel
        self.http = http
        self.broker = broker
    }

    /// `options` with the defaults for whatever they leave unset. `options` are taken as checked (the
    /// config file and the flags check their values against `Options`' limits).
    public init(_ options: Options, environment: [String: String]) {
        let sink = options.sink.flatMap { $0 == SinkSelection.defaultSinkName ? nil : $0 }
        self.init(
            socketPath: options.socket ?? Self.defaultSocketPath(environment: environment),
            server: options.server,
            core: GuardCore.Configuration(
                selection: sink.map(SinkSelection.matching) ?? .defaultSink,
                keyStep: options.step.map(Options.raw(percent:)),
                guardsMute: options.guardMute ?? true,
                clampMargin: options.clampMargin.map(Options.raw(percent:)) ?? HeldLevel.defaultMargin
            ),
            source: options.source ?? .sink,
            input: InputSource.Configuration(
                matches: (options.devices ?? []).compactMap(DeviceMatch.init), keys: Set((options.keys ?? []).compactMap(KeyNames.code))
            ),
            gestures: Self.gestures(options),
            historyCapacity: options.history ?? Self.defaultHistoryCapacity,
            mode: options.mode ?? .always,
            actions: options.actions ?? [],
            logLevel: options.logLevel ?? .info,
            http: options.http.flatMap(ListenAddress.init).map { address in
                HTTPSettings(
                    address: address, origins: (options.httpOrigins ?? []).compactMap(WebOrigin.init), tokensOnLoopback: options.httpTokens ?? false)
            },
            broker: options.brokerSettings
        )
    }

    /// The gesture thresholds `options` set, the detector's defaults for the rest.
    static func gestures(_ options: Options) -> GestureDetector.Thresholds {
        let defaults = GestureDetector.Thresholds()
        return GestureDetector.Thresholds(
            repeatPeriod: options.repeatPeriod.map { .milliseconds($0) } ?? defaults.repeatPeriod,
            repeatDelay: options.repeatDelay.map { .milliseconds($0) } ?? defaults.repeatDelay,
            doubleWindow: options.doubleWindow.map { .milliseconds($0) } ?? defaults.doubleWindow,
            holdDelay: options.holdDelay.map { .milliseconds($0) } ?? defaults.holdDelay
        )
    }

    /// What the gesture detectors are configured with: the thresholds, and the gestures the actions use
    /// on each key.
    public var gestureDetection: GestureDetector.Configuration {
        GestureDetector.Configuration(thresholds: gestures, uses: GestureUses(actions: actions))
    }

    /// `$XDG_RUNTIME_DIR/volume-guard.sock`, or `/tmp/volume-guard-UID/volume-guard.sock` without one.
    public static func defaultSocketPath(environment: [String: String]) -> String {
        let runtime = environment.nonEmpty("XDG_RUNTIME_DIR") ?? "/tmp/volume-guard-\(getuid())"
        return runtime + "/volume-guard.sock"
    }

    /// The settings that take effect only when the daemon starts, by name, that differ in `other`.
    public func restartOnlyChanges(from other: DaemonConfiguration) -> [String] {
        var changed: [String] = []
        if socketPath != other.socketPath { changed.append("socket") }
        if server != other.server { changed.append("server") }
        if source != other.source { changed.append("source") }
        if input.matches != other.input.matches { changed.append("devices") }
        if input.keys != other.input.keys { changed.append("keys") }
        if historyCapacity != other.historyCapacity { changed.append("history") }
        if http?.address != other.http?.address { changed.append("http") }
        if http?.origins != other.http?.origins { changed.append("http-origins") }
        if http?.tokensRequired != other.http?.tokensRequired { changed.append("http-tokens") }
        return changed
    }

    /// Minutes of key auto-repeat, hours of normal use.
    public static let defaultHistoryCapacity = 1024
    /// Bounds `historyCapacity`: every client's queue makes room for a whole replay.
    public static let historyCapacities = 1...65536
}
