/// Why the broker cannot be used now, in words for the log, `status` and `doctor`, with the fix when the
/// user can make one (a wrong password, a certificate).
public struct BrokerError: Hashable, Sendable {
    public var text: String
    public var hint: String?

    public init(text: String, hint: String? = nil) {
        self.text = text
        self.hint = hint
    }

    /// The broker answered CONNECT with a refusal: MQTT 3.1.1's return codes 4 (bad user name or password)
    /// and 5 (not authorized) are the credentials'.
    public static func refused(code: Int, reason: String) -> BrokerError {
        let credentials = code == 4 || code == 5
        return BrokerError(
            text: "the broker refused the connection: \(reason)",
            hint: credentials ? "check mqtt-user and the password in mqtt-password-file" : nil
        )
    }

    /// The connection could not be made, or broke; `tls` when it was the TLS handshake (a certificate).
    public static func failed(reason: String, tls: Bool) -> BrokerError {
        BrokerError(
            text: "no connection to the broker: \(reason)",
            hint: tls ? "check mqtt-ca-file (the broker's CA) and, if set, mqtt-cert-file and mqtt-key-file" : nil
        )
    }
}

/// A line for the daemon's log.
public struct BrokerReport: Hashable, Sendable {
    public enum Level: Hashable, Sendable {
        case info
        case warning
    }

    public var level: Level
    public var text: String
    public var hint: String?

    public init(_ level: Level, _ text: String, hint: String? = nil) {
        self.level = level
        self.text = text
        self.hint = hint
    }
}
