/// A web page's origin, as a browser sends it in `Origin`: `scheme://host[:port]`, the scheme and host
/// in lower case and a scheme's default port left out, so that `http-origins` compares with what
/// browsers send however it was written.
public struct WebOrigin: Hashable, Sendable, CustomStringConvertible {
    public let description: String

    /// An `http` or `https` origin with no path, query or user; nil for anything else. `*` is no origin:
    /// a listener that let every page pause the guard would not be safe.
    public init?(_ text: String) {
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("http://") {
            scheme = "http"
        } else if lowered.hasPrefix("https://") {
            scheme = "https"
        } else {
            return nil
        }
        let authority = lowered.dropFirst(scheme.count + 3)
        guard !authority.isEmpty, !authority.contains(where: { "/?#@ \\".contains($0) }) else { return nil }
        var host = authority
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            let port = authority[authority.index(after: colon)...]
            guard let number = Int(port), (1...65535).contains(number), port.allSatisfy(\.isASCIIDigit) else { return nil }
            if number == (scheme == "http" ? 80 : 443) { host = authority[..<colon] }
        }
        guard !host.isEmpty, !host.hasPrefix(":") else { return nil }
        description = "\(scheme)://\(host)"
    }

    /// What is wrong with an origin as written, or nil.
    public static func problem(_ text: String) -> String? {
        WebOrigin(text) == nil
            ? "must be web page origins: scheme, host and port, e.g. \"http://127.0.0.1:8000\" (no path, no \"*\")"
            : nil
    }
}
