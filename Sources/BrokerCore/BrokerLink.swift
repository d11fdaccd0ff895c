/// The life of the daemon's connection to an MQTT broker, and the presses waiting for it, as a value. Fed
/// what happens to the shell's `BrokerConnection` with the time it happened, it returns what the shell is
/// to do, in order; the shell performs that and decides nothing itself.
///
/// Each attempt is a new connection, numbered: what an older attempt still reports is stale and ignored.
/// Presses and gestures wait in order in a queue of `queueLimit` (the oldest dropped beyond, counted), at
/// most `inFlightLimit` of them sent and not yet acknowledged; what a lost connection left unacknowledged
/// is sent again, in order, on the next (QoS 1 may so deliver a message twice: its `seq` tells).
///
/// Home Assistant connects with a clean session: a press published while it is not subscribed is lost to
/// it, and after a broker restart it subscribes again only when it sends its birth, about 5 s after the
/// broker is back (seen with Home Assistant 2024.3). So when discovery is on, after a reconnect (on the first connection
/// Home Assistant is likely subscribed already) and after Home Assistant's `offline`, presses are held
/// until its birth `online` is seen or `holdLimit` has passed.
public struct BrokerLink: Hashable, Sendable {
    public struct Configuration: Hashable, Sendable {
        public var topics: BrokerTopics
        /// Whether `pause` and `resume` on the command topic are obeyed.
        public var commands: Bool
        /// Whether Home Assistant's discovery configs are published, and its birth awaited.
        public var discovery: Bool
        /// The discovery configs (`DiscoveryDocuments.documents`).
        public var documents: [BrokerDocument]
        /// Configs of an earlier configuration to remove on the first connection (`DiscoveryDocuments.removals`).
        public var removals: [BrokerDocument]

        public init(
            topics: BrokerTopics, commands: Bool = false, discovery: Bool = true, documents: [BrokerDocument] = [],
            removals: [BrokerDocument] = []
        ) {
            self.topics = topics
            self.commands = commands
            self.discovery = discovery
            self.documents = documents
            self.removals = removals
        }
    }

    public enum State: Hashable, Sendable {
        /// Not started yet.
        case off
        /// Attempt `attempt` is connecting.
        case connecting(attempt: Int)
        /// Attempt `attempt` failed or was lost; the next starts at `due`.
        case waiting(attempt: Int, due: Duration)
        /// Attempt `attempt` connected at `since`.
        case connected(attempt: Int, since: Duration)
        /// A stop ends attempt `attempt`, until `deadline` at most: once the broker has acknowledged
        /// `offline` (the link's message `offline`), a DISCONNECT. Not at once: a socket closed while an
        /// acknowledgement is still unread is reset, and the broker may then lose the DISCONNECT and send
        /// the will as well.
        case stopping(attempt: Int, deadline: Duration, offline: UInt64)
        /// Nothing runs any more.
        case finished
    }

    public enum Command: String, Hashable, Sendable {
        case pause
        case resume
    }

    public enum Event: Hashable, Sendable {
        /// The shell starts.
        case start
        case connected(attempt: Int)
        /// The broker answered with a refusal (MQTT's return `code`).
        case refused(attempt: Int, code: Int, reason: String)
        /// The connection could not be made; `tls` when the TLS handshake failed.
        case failed(attempt: Int, reason: String, tls: Bool)
        /// The connection broke.
        case lost(attempt: Int, reason: String)
        /// The broker acknowledged the message the link numbered `message` (the shell maps libmosquitto's
        /// mid back to it).
        case acknowledged(attempt: Int, message: UInt64)
        case received(attempt: Int, topic: String, payload: String)
        /// The connection is closed, after a `disconnect`.
        case closed(attempt: Int)
        /// A time asked for by `setTimer` has come.
        case timer
        /// A press or gesture to send.
        case outgoing(BrokerEvent)
        /// The daemon's state changed.
        case state(BrokerState)
        /// A stop: the daemon ends, or its broker settings changed.
        case stop
    }

    /// One message to publish, at QoS 1. `message` numbers a press or gesture, whose acknowledgement the
    /// link awaits; the rest (availability, state, discovery) have none.
    public struct Publication: Hashable, Sendable {
        public var message: UInt64?
        public var topic: String
        public var payload: String
        public var retain: Bool

        public init(message: UInt64?, topic: String, payload: String, retain: Bool) {
            self.message = message
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }
    }

    public enum Action: Hashable, Sendable {
        /// Make attempt `attempt`'s connection and connect it, with the retained `offline` will on the
        /// availability topic.
        case connect(attempt: Int)
        case publish(attempt: Int, Publication)
        case subscribe(attempt: Int, topics: [String])
        case disconnect(attempt: Int)
        /// Close attempt `attempt`'s connection, which is over.
        case close(attempt: Int)
        /// Tell `.timer` at `due`.
        case setTimer(Duration)
        case command(Command)
        case report(BrokerReport)
        /// The link has ended.
        case finished
    }

    public static let queueLimit = 1_000
    public static let inFlightLimit = 100
    /// Attempts back off, doubling, from `firstBackoff` to `maximumBackoff`.
    public static let firstBackoff: Duration = .seconds(1)
    public static let maximumBackoff: Duration = .seconds(60)
    /// A connection that lasted this long resets the back-off: the broker was there, what broke it is new.
    public static let lastingConnection: Duration = .seconds(10)
    /// How long presses are held for Home Assistant's birth.
    public static let holdLimit: Duration = .seconds(15)
    /// How long a stop waits for the connection to close.
    public static let stopTimeout: Duration = .seconds(3)

    public let configuration: Configuration
    public internal(set) var state = State.off
    var attempt = 0
    var backoff = Self.firstBackoff
    var hasConnected = false
    /// Presses are held until then, for Home Assistant's birth.
    var holdUntil: Duration?
    var queue: [Queued] = []
    /// The queued messages sent on the current connection and not acknowledged yet.
    var sent: Set<UInt64> = []
    var nextMessage: UInt64 = 1
    var dropped = 0
    var droppedSinceConnected = 0
    var latestState: BrokerState?
    var lastError: BrokerError?

    struct Queued: Hashable, Sendable {
        var message: UInt64
        var payload: String
    }

    /// A link that sends `leftOver` (an earlier link's `leftOver`, oldest first) before its own presses.
    public init(_ configuration: Configuration, leftOver: [String] = []) {
        self.configuration = configuration
        for payload in leftOver.suffix(Self.queueLimit) {
            queue.append(Queued(message: nextMessage, payload: payload))
            nextMessage += 1
        }
    }

    /// The presses and gestures this link did not get out, in order: all it holds but those a stop sent
    /// before its DISCONNECT. A link that replaces this one after a reload sends them.
    public var leftOver: [String] {
        queue.filter { !sent.contains($0.message) }.map(\.payload)
    }

    public var hasFinished: Bool { state == .finished }
}
