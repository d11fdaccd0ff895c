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

    public init(
        id: RequestID?, state: GuardState, sink: String?, held: LevelMessage?, original: LevelMessage?,
        muted: Bool?, presses: PressCountsMessage, lastSeq: UInt64, subscribers: Int, server: String?,
        uptimeSeconds: Double, contested: Bool = false, http: HTTPListenerMessage? = nil
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
    }

    private enum CodingKeys: String, CodingKey {
        case type, id, state, sink, held, original, muted, presses, subscribers, server, contested, http
        case lastSeq = "last_seq"
        case uptimeSeconds = "uptime_seconds"
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
    public var direction: Direction
    public var count: Int
    public var sink: String
    /// When the guard saw it: ISO 8601, UTC, milliseconds.
    public var time: String

    public init(seq: UInt64, direction: Direction, count: Int, sink: String, time: String) {
        self.seq = seq
        self.direction = direction
        self.count = count
        self.sink = sink
        self.time = time
    }
}

/// A gesture, sent to subscribers that did not turn gestures off: extra to the press lines, which stay
/// exactly as they are.
public struct GestureMessage: Hashable, Sendable, Codable {
    public var type = "gesture"
    public var gesture: GestureKind
    public var direction: Direction
    /// The seq of the press that completed the gesture.
    public var seq: UInt64
    /// How many key steps the gesture spans so far.
    public var presses: Int
    public var sink: String?
    /// When the guard told it: ISO 8601, UTC, milliseconds.
    public var time: String

    public init(gesture: GestureKind, direction: Direction, seq: UInt64, presses: Int, sink: String?, time: String) {
        self.gesture = gesture
        self.direction = direction
        self.seq = seq
        self.presses = presses
        self.sink = sink
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
