/// Where the HTTP listener binds: an IP address and a port, as `http` in the config file or `--http`
/// writes it.
///
/// A bare port binds to loopback: anything wider must be written out, because a TCP port on another
/// interface is open to every host that can reach it, where the control socket is open to one user.
/// Only address literals (and `localhost`) are taken, never a host name to resolve: which interface the
/// daemon exposes must not depend on what DNS says at start.
public struct ListenAddress: Hashable, Sendable, CustomStringConvertible {
    /// The IP address literal to bind: `127.0.0.1`, `::1`, `0.0.0.0`, ...
    public var host: String
    /// 0 asks the kernel for a free port (the log and `status` name the one it gave).
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `PORT`, `HOST:PORT` or `[IPV6]:PORT`; `localhost` stands for `127.0.0.1`.
    public init?(_ text: String) {
        let host: Substring
        let port: Substring
        if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        } else {
            (host, port) = ("", Substring(text))
        }
        guard let number = Int(port), (0...65535).contains(number), port.allSatisfy(\.isASCII) else { return nil }
        if host.isEmpty || host.lowercased() == "localhost" {
            self.init(host: "127.0.0.1", port: number)
        } else if host.first == "[", host.last == "]", Self.isIPv6(host.dropFirst().dropLast()) {
            self.init(host: String(host.dropFirst().dropLast()), port: number)
        } else if Self.isIPv4(host) {
            self.init(host: String(host), port: number)
        } else {
            return nil
        }
    }

    /// `127.0.0.1:8080` or `[::1]:8080`.
    public var description: String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// Whether only this machine can reach the address: `127.0.0.0/8` or `::1`.
    public var isLoopback: Bool {
        host.hasPrefix("127.") || host == "::1"
    }

    /// What is wrong with an address as written, or nil.
    public static func problem(_ text: String) -> String? {
        ListenAddress(text) == nil
            ? "must be a port or an IP address and port, e.g. \"127.0.0.1:8370\" or \"[::1]:8370\" (port 0 to 65535)"
            : nil
    }

    private static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit) && Int(part)! <= 255
            }
    }

    /// A rough check (hex groups and colons, or an embedded IPv4 tail); the bind itself is the last word.
    private static func isIPv6(_ text: Substring) -> Bool {
        text.contains(":") && text.count <= 45 && text.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
