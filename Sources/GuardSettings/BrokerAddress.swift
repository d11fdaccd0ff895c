/// Where the MQTT broker is, as `mqtt` writes it: `mqtt://HOST[:PORT]`, or `mqtts://HOST[:PORT]` for TLS.
/// HOST is a name, an IPv4 address or an IPv6 address in brackets; the port is MQTT's (1883, 8883 for TLS)
/// unless given. Nothing else: a user or password in the URL would sit in the config file and the
/// process's arguments, so they have keys of their own (`mqtt-user`, `mqtt-password-file`).
public struct BrokerAddress: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool

    public init(host: String, port: Int, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    public init?(_ text: String) {
        guard case .success(let address) = Self.parse(text) else { return nil }
        self = address
    }

    /// `mqtts://pi.local:8883`, `mqtt://[::1]:1883`.
    public var description: String {
        (tls ? "mqtts" : "mqtt") + "://" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// What is wrong with an address as written, or nil.
    public static func problem(_ text: String) -> String? {
        guard case .failure(let problem) = parse(text) else { return nil }
        return problem.text
    }

    struct Problem: Error {
        var text: String
    }

    private static func parse(_ text: String) -> Result<BrokerAddress, Problem> {
        let example = "e.g. \"mqtt://192.168.1.10:1883\" or \"mqtts://broker.local\""
        let tls: Bool
        let rest: Substring
        if text.lowercased().hasPrefix("mqtt://") {
            (tls, rest) = (false, text.dropFirst("mqtt://".count))
        } else if text.lowercased().hasPrefix("mqtts://") {
            (tls, rest) = (true, text.dropFirst("mqtts://".count))
        } else {
            return .failure(Problem(text: "must start with mqtt:// or mqtts://, \(example)"))
        }
        if rest.contains("@") {
            return .failure(Problem(text: "must not hold a user or password: set mqtt-user and mqtt-password-file"))
        }
        if rest.contains(where: { "/?#".contains($0) }) {
            return .failure(Problem(text: "must be only mqtt:// or mqtts:// and a host with an optional port, \(example)"))
        }
        var host = rest
        var port = tls ? 8883 : 1883
        if rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else { return .failure(Problem(text: "has an IPv6 address without its \"]\"")) }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":", let number = Self.port(after.dropFirst()) else { return .failure(Problem(text: "has a bad port: 1 to 65535")) }
                port = number
            }
            guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return .failure(Problem(text: "has a bad IPv6 address in brackets"))
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            let after = rest[rest.index(after: colon)...]
            if after.contains(":") {
                return .failure(Problem(text: "has an IPv6 address without brackets, e.g. \"mqtt://[fd00::10]:1883\""))
            }
            guard let number = Self.port(after) else { return .failure(Problem(text: "has a bad port: 1 to 65535")) }
            port = number
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) }) else {
            return .failure(Problem(text: "needs a host name or address, \(example)"))
        }
        return .success(BrokerAddress(host: String(host), port: port, tls: tls))
    }

    private static func port(_ text: Substring) -> Int? {
        guard text.allSatisfy(\.isASCIIDigit), let number = Int(text), (1...65535).contains(number) else { return nil }
        return number
    }
}
