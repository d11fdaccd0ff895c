/// A level as clients see it: the loudest channel in percent, and every channel's raw value.
public struct LevelMessage: Hashable, Sendable, Codable {
    public var percent: Double
    public var raw: [UInt32]

    public init(percent: Double, raw: [UInt32]) {
        self.percent = percent
        self.raw = raw
    }
}

public struct PressCountsMessage: Hashable, Sendable, Codable {
    public var up: Int
    public var down: Int
    public var mute: Int

    public init(up: Int, down: Int, mute: Int) {
        self.up = up
        self.down = down
        self.mute = mute
    }
}

/// Reply to `status`.
public struct StatusMessage: Hashable, Sendable, Codable {
    public var type = "status"
    public var id: RequestID?
    public var state: GuardState
    public var sink: String?
    public var held: LevelMessage?
    public var original: LevelMessage?
    public var muted: Bool?
    public var presses: PressCountsMessage
    public var lastSeq: UInt64
    public var subscribers: Int
    /// The audio server's name and version, e.g. "pulseaudio 16.1".
    public var server: String?
    public var uptimeSeconds: Double
    /// True when another client fought the guard (set the volume right after every reset): the guard
    /// then holds that client's level (`held`) instead, and still reports and resets presses.
    public var contested: Bool
    /// The HTTP listener, when the daemon runs one.
    public var http: HTTPListenerMessage?
    /// Where presses come from: `sink`, `input` or `both`.
    public var source: String
    /// The input devices, with `input` or `both`: each one found that matches, and each match that no
    /// device present meets.
    public var devices: [DeviceMessage]?
    /// The configured actions, in the config file's order; absent when there are none.
    public var actions: [ActionMessage]?

    public init(
        id: RequestID?, state: GuardState, sink: String?, held: LevelMessage?, original: LevelMessage?,
        muted: Bool?, presses: PressCountsMessage, lastSeq: UInt64, subscribers: Int, server: String?,
        uptimeSeconds: Double, contested: Bool = false, http: HTTPListenerMessage? = nil, source: String = "sink",
        devices: [DeviceMessage]? = nil, actions: [ActionMessage]? = nil
    ) {
        self.id = id
        self.state = state
        self.sink = sink
        self.held = held
        self.original = original
        self.muted = muted
        self.presses = presses
        self.lastSeq = lastSeq
        self.subscribers = subscribers
        self.server = server
        self.uptimeSeconds = uptimeSeconds
        self.contested = contested
        self.http = http
        self.source = source
        self.devices = devices
        self.actions = actions
    }

    private enum CodingKeys: String, CodingKey {
        case type, id, state, sink, held, original, muted, presses, subscribers, server, contested, http, source, devices, actions
        case lastSeq = "last_seq"
        case uptimeSeconds = "uptime_seconds"
    }
}

/// An input device in a status reply.
public struct DeviceMessage: Hashable, Sendable, Codable {
    /// The configured match it meets, as written (`AB Shutter3`, `2717:0040`, a path).
    public var match: String
    /// Its name, node and `vendor:product`; absent for a match no device meets.
    public var name: String?
    public var path: String?
    public var ids: String?
    /// Its Bluetooth address, when it has one.
    public var address: String?
    public var state: DeviceState
    /// Why it is refused, and what to do about it: on the wire as two fields, `error` and `fix`.
    public var problem: DeviceProblem? {
        get { error.map { DeviceProblem(error: $0, fix: fix ?? "") } }
        set { (error, fix) = (newValue?.error, newValue?.fix) }
    }
    private var error: String?
    private var fix: String?
    /// The last key it sent, by the kernel's name.
    public var lastKey: String?

    public init(
        match: String, name: String? = nil, path: String? = nil, ids: String? = nil, address: String? = nil, state: DeviceState,
        problem: DeviceProblem? = nil, lastKey: String? = nil
    ) {
        self.match = match
        self.name = name
        self.path = path
        self.ids = ids
        self.address = address
        self.state = state
        self.problem = problem
        self.lastKey = lastKey
    }

    private enum CodingKeys: String, CodingKey {
        case match, name, path, ids, address, state, error, fix
        case lastKey = "last_key"
    }
}

/// A configured action in a status reply: how often it ran, and how its last run went.
public struct ActionMessage: Hashable, Sendable, Codable {
    /// Its name, as the log calls it.
    public var name: String
    /// The gesture it runs on; absent for every press.
    public var gesture: TriggerKind?
    /// For an action on taps, how long after the press it starts at the soonest, from each source it hears:
    /// the wait until no second press can make the press a double.
    public var tapDelay: TapDelayMessage?
    /// The runs started since the daemon started.
    public var runs: Int
    /// The presses (or gestures) it was dropped for: it was still running, cooling down, or too many
    /// actions ran.
    public var dropped: Int
    /// Its last run; absent until it first runs.
    public var last: ActionRunMessage?

    public init(name: String, gesture: TriggerKind? = nil, tapDelay: TapDelayMessage? = nil, runs: Int, dropped: Int, last: ActionRunMessage?) {
        self.name = name
        self.gesture = gesture
        self.tapDelay = tapDelay
        self.runs = runs
        self.dropped = dropped
        self.last = last
    }

    private enum CodingKeys: String, CodingKey {
        case name, gesture, runs, dropped, last
        case tapDelay = "tap_delay_ms"
    }
}

/// How long an action on taps waits after the press, in milliseconds, per source; absent for a source it
/// does not hear.
public struct TapDelayMessage: Hashable, Sendable, Codable {
    public var input: Int?
    public var sink: Int?

    public init(input: Int? = nil, sink: Int? = nil) {
        self.input = input
        self.sink = sink
    }
}

/// One run of an action.
public struct ActionRunMessage: Hashable, Sendable, Codable {
    /// The seq of the press that started it.
    public var seq: UInt64
    /// When it started: ISO 8601, UTC, milliseconds.
    public var time: String
    public var result: ActionResult
    /// The exit status, when it `exited`; the signal's number, when it was `signaled`.
    public var status: Int?
    public var signal: Int?
    /// Why it could not start, when it `failed`.
    public var error: String?
    /// How long it ran, once it ended.
    public var seconds: Double?

    public init(
        seq: UInt64, time: String, result: ActionResult, status: Int? = nil, signal: Int? = nil, error: String? = nil, seconds: Double? = nil
    ) {
        self.seq = seq
        self.time = time
        self.result = result
        self.status = status
        self.signal = signal
        self.error = error
        self.seconds = seconds
    }
}

/// The HTTP listener in a status reply.
public struct HTTPListenerMessage: Hashable, Sendable, Codable {
    /// Where it listens, as bound: `127.0.0.1:8370`.
    public var address: String
    /// Event streams open now (they count among `subscribers` too).
    public var clients: Int
    /// Connections open now, event streams included.
    public var connections: Int

    public init(address: String, clients: Int, connections: Int) {
        self.address = address
        self.clients = clients
        self.connections = connections
    }
}

/// Reply to `subscribe`; the presses replayed for `since` follow, then live ones.
public struct SubscribedMessage: Hashable, Sendable, Codable {
    public var type = "subscribed"
    public var id: RequestID?
    public var lastSeq: UInt64
    /// Names this run of the daemon, anew at every start. Seqs count from 1 in each run, so a `since`
    /// taken from another run means nothing here: its client was away across a restart.
    public var instance: String
    /// True when presses after the request's `since` were already dropped from the daemon's history, so
    /// the replay cannot be complete; absent otherwise, so that a client need only test for it.
    public var gap: Bool?

    public init(id: RequestID?, lastSeq: UInt64, instance: String, gap: Bool = false) {
        self.id = id
        self.lastSeq = lastSeq
        self.instance = instance
        self.gap = gap ? true : nil
    }

    private enum CodingKeys: String, CodingKey {
        case type, id, instance, gap
        case lastSeq = "last_seq"
    }
}

/// One press, sent to every subscriber.
public struct PressMessage: Hashable, Sendable, Codable {
    public var type = "press"
    public var seq: UInt64
    /// The volume key it stands for; absent for another key of a device (`key` names it).
    public var direction: Direction?
    /// A device's key, by the kernel's name (`KEY_VOLUMEUP`, `KEY_ENTER`); absent for a press seen on the sink.
    public var key: String?
    public var count: Int
    public var source: Source
    /// The sink it was made on, for a press seen on the sink.
    public var sink: String?
    /// The device it came from (its name) and its node, for a device's press.
    public var device: String?
    public var path: String?
    /// When the guard saw it: ISO 8601, UTC, milliseconds.
    public var time: String

    public init(
        seq: UInt64, direction: Direction?, key: String? = nil, count: Int, source: Source = .sink, sink: String?,
        device: String? = nil, path: String? = nil, time: String
    ) {
        self.seq = seq
        self.direction = direction
        self.key = key
        self.count = count
        self.source = source
        self.sink = sink
        self.device = device
        self.path = path
        self.time = time
    }
}

/// A device's key came back up, or can no longer be down (`cause`): sent to every subscriber, after its
/// press.
public struct ReleaseMessage: Hashable, Sendable, Codable {
    public var type = "release"
    /// The seq of the key's press.
    public var seq: UInt64
    public var direction: Direction?
    public var key: String
    public var source: Source
    public var device: String
    public var path: String
    public var cause: ReleaseCause
    /// How long the key was down, in milliseconds.
    public var heldMilliseconds: Int
    public var time: String

    public init(
        seq: UInt64, direction: Direction?, key: String, device: String, path: String, cause: ReleaseCause, heldMilliseconds: Int,
        time: String
    ) {
        self.seq = seq
        self.direction = direction
        self.key = key
        self.source = .input
        self.device = device
        self.path = path
        self.cause = cause
        self.heldMilliseconds = heldMilliseconds
        self.time = time
    }

    private enum CodingKeys: String, CodingKey {
        case type, seq, direction, key, source, device, path, cause, time
        case heldMilliseconds = "held_ms"
    }
}

/// A gesture, sent to subscribers that did not turn gestures off: extra to the press lines, which stay
/// exactly as they are.
public struct GestureMessage: Hashable, Sendable, Codable {
    public var type = "gesture"
    public var gesture: GestureKind
    public var direction: Direction?
    public var key: String?
    /// The seq of the press that completed the gesture.
    public var seq: UInt64
    /// How many key steps the gesture spans so far.
    public var presses: Int
    public var source: Source
    public var sink: String?
    public var device: String?
    public var path: String?
    /// Why a device's hold ended: its release's cause.
    public var cause: ReleaseCause?
    /// When the guard told it: ISO 8601, UTC, milliseconds.
    public var time: String

    public init(
        gesture: GestureKind, direction: Direction?, key: String? = nil, seq: UInt64, presses: Int, source: Source = .sink,
        sink: String?, device: String? = nil, path: String? = nil, cause: ReleaseCause? = nil, time: String
    ) {
        self.gesture = gesture
        self.direction = direction
        self.key = key
        self.seq = seq
        self.presses = presses
        self.source = source
        self.sink = sink
        self.device = device
        self.path = path
        self.cause = cause
        self.time = time
    }
}

/// Sent to subscribers when the guard's state or guarded sink changes.
public struct StateMessage: Hashable, Sendable, Codable {
    public var type = "state"
    public var state: GuardState
    public var sink: String?

    public init(state: GuardState, sink: String?) {
        self.state = state
        self.sink = sink
    }
}

/// Reply to `ping`, `pause`, `resume` and `version`.
public struct AckMessage: Hashable, Sendable, Codable {
    /// One of `types`.
    public var type: String
    public var id: RequestID?
    public var version: String?

    public init(type: String, id: RequestID?, version: String? = nil) {
        self.type = type
        self.id = id
        self.version = version
    }

    /// The replies that only acknowledge a request.
    public static let types: Set = ["pong", "paused", "resumed", "version"]
}

/// Reply to a request that cannot be served; the connection stays open.
public struct ErrorMessage: Hashable, Sendable, Codable {
    public var type = "error"
    public var id: RequestID?
    public var code: RequestError.Code
    public var message: String

    public init(_ error: RequestError) {
        id = error.id
        code = error.code
        message = error.message
    }
}
