extension BrokerConnection {
    /// What a connection tells its handler, on the connection's own thread and in the order it happened.
    public enum Event: Sendable, Equatable {
        /// The broker accepted the connection (CONNACK 0).
        case connected
        /// The broker answered and refused (a CONNACK code other than 0); `reason` is libmosquitto's text for
        /// the code, e.g. "not authorised".
        case refused(code: Int32, reason: String)
        /// No connection came about: the TCP connect, the name lookup, the TLS handshake (`tls`, with
        /// OpenSSL's reason, e.g. "certificate verify failed"), or no CONNACK before the request's deadline.
        case failed(reason: String, tls: Bool)
        /// The connection ended after `.connected` without `disconnect` or `close`.
        case lost(reason: String)
        /// The broker's PUBACK for the QoS 1 publish whose `publish` returned `ticket`.
        case acknowledged(ticket: Int32)
        /// A message on a subscribed topic.
        case received(topic: String, payload: [UInt8])
        /// The last event, sent once: the connection's thread has ended and its handle is freed.
        case closed
    }

    /// The message the broker publishes for the client when the connection ends without a DISCONNECT
    /// (a crash, a cut network, `close`). Sent at QoS 1.
    public struct Will: Sendable {
        public var topic: String
        public var payload: [UInt8]
        public var retain: Bool

        public init(topic: String, payload: [UInt8], retain: Bool) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }
    }

    /// TLS for the connection: the broker's certificate is checked against `caFile` (the system's CAs in
    /// /etc/ssl/certs when nil) and its name against the host; `certFile` and `keyFile` are the client's.
    public struct TLS: Sendable {
        public var caFile: String?
        public var certFile: String?
        public var keyFile: String?

        public init(caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil) {
            self.caFile = caFile
            self.certFile = certFile
            self.keyFile = keyFile
        }
    }

    /// Where and how to connect. The password is never part of a description or a log line.
    public struct ConnectRequest: Sendable {
        public var host: String
        public var port: Int
        /// Seconds between the client's pings when nothing else is sent.
        public var keepalive: Int
        public var username: String?
        public var password: String?
        public var tls: TLS?
        public var will: Will?
        /// How long the connection may take, from `connect` to the CONNACK.
        public var deadline: Duration

        public init(
            host: String, port: Int, keepalive: Int = 30, username: String? = nil, password: String? = nil, tls: TLS? = nil,
            will: Will? = nil, deadline: Duration = .seconds(10)
        ) {
            self.host = host
            self.port = port
            self.keepalive = keepalive
            self.username = username
            self.password = password
            self.tls = tls
            self.will = will
            self.deadline = deadline
        }
    }
}

/// A request libmosquitto refused at once (`publish`, `subscribe`), or one made on a connection that is not
/// connected.
public struct BrokerConnectionError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
