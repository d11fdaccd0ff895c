import CCrypto
import Glibc

/// A paired client's secret: 32 bytes from the kernel's random source (getrandom(2)), written in
/// base64url without padding (43 characters), so that it goes in a URL's query as it is. The daemon keeps
/// only its `TokenHash`.
public struct Token: Hashable, Sendable, CustomStringConvertible {
    public static let byteCount = 32
    /// What a token's text is at most, as a request carries it: anything longer is no token.
    public static let textLimit = 64

    public let text: String

    /// A token as a request carried it; nil when it is no token's text (empty, too long, outside base64url).
    public init?(_ text: Substring) {
        guard !text.isEmpty, text.utf8.count <= Self.textLimit, text.utf8.allSatisfy(Self.isBase64URL) else { return nil }
        self.text = String(text)
    }

    /// A new token, from getrandom(2).
    public static func generate() throws(RandomSourceFailure) -> Token {
        var bytes = [UInt8](repeating: 0, count: byteCount)
        var filled = 0
        while filled < byteCount {
            let got = bytes.withUnsafeMutableBytes { getrandom($0.baseAddress! + filled, byteCount - filled, 0) }
            if got < 0 {
                if errno == EINTR { continue }
                throw RandomSourceFailure(errno: errno)
            }
            filled += got
        }
        return Token(encoding: bytes)
    }

    private init(encoding bytes: [UInt8]) {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var text: [UInt8] = []
        var bits = 0
        var held: UInt32 = 0
        for byte in bytes {
            held = held << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                text.append(alphabet[Int(held >> UInt32(bits) & 0x3F)])
            }
        }
        if bits > 0 { text.append(alphabet[Int(held << UInt32(6 - bits) & 0x3F)]) }
        self.text = String(decoding: text, as: UTF8.self)
    }

    public var hash: TokenHash { TokenHash(of: text) }

    /// Never the secret itself: a token that reaches a log or an error message by mistake stays secret.
    public var description: String { "Token(…)" }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}

/// getrandom(2) failed: the kernel's random source could not be read.
public struct RandomSourceFailure: Error, CustomStringConvertible {
    public var errno: Int32
    public var description: String { "cannot read the kernel's random source: \(String(cString: strerror(errno)))" }
}

/// A token's SHA-256, as the pairings file keeps it: 64 lowercase hex digits.
public struct TokenHash: Hashable, Sendable, Codable, CustomStringConvertible {
    public let bytes: [UInt8]

    init(of text: String) {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var input = Array(text.utf8)
        _ = SHA256(&input, input.count, &digest)
        bytes = digest
    }

    /// A hash written as the file has it; nil when it is not 64 hex digits.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.value(digits[index]), let low = Self.value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    public var description: String {
        bytes.map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
    }

    /// Whether both are the same hash, in time that does not depend on where they differ (OpenSSL's
    /// CRYPTO_memcmp), so that the time an answer takes tells nothing of a stored hash.
    public func matches(_ other: TokenHash) -> Bool {
        guard bytes.count == other.bytes.count else { return false }
        return bytes.withUnsafeBytes { mine in
            other.bytes.withUnsafeBytes { theirs in CRYPTO_memcmp(mine.baseAddress, theirs.baseAddress, mine.count) == 0 }
        }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let hash = TokenHash(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not 64 hex digits"))
        }
        self = hash
    }

    public func encode(to encoder: any Encoder) throws {
        var value = encoder.singleValueContainer()
        try value.encode(description)
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
