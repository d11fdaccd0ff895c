/// The kernel's bitmaps of key codes: one bit per code, in words of a `long`, bit `n % 64` of word
/// `n / 64` for code `n` (where a `long` is 64 bits wide). EVIOCGBIT and EVIOCGKEY fill them, lowest word
/// first; sysfs's `capabilities/key` prints one in hex, highest word first.
enum KeyBitmap {
    /// The codes whose bits are set in `words`, lowest word first.
    static func codes(words: [UInt]) -> Set<UInt16> {
        var codes = Set<UInt16>()
        for (index, word) in words.enumerated() where word != 0 {
            for bit in 0..<UInt.bitWidth where word & (1 << bit) != 0 {
                codes.insert(UInt16(index * UInt.bitWidth + bit))
            }
        }
        return codes
    }

    /// The codes in a sysfs `capabilities/key` file: words in hex without leading zeros, separated by
    /// spaces, highest first (the kernel drops leading zero words, and writes `0` for no keys at all).
    /// Each word is the kernel's `long`, taken to be as wide as this program's, as on the 64-bit systems
    /// Swift runs on. Nil when the text is not such a bitmap.
    static func codes(sysfs text: some StringProtocol) -> Set<UInt16>? {
        let hexWords = text.split(whereSeparator: \.isWhitespace)
        guard !hexWords.isEmpty, hexWords.count * UInt.bitWidth <= Int(UInt16.max) + 1 else { return nil }
        var words = [UInt]()
        for hex in hexWords.reversed() {
            guard let word = UInt(hex, radix: 16) else { return nil }
            words.append(word)
        }
        return codes(words: words)
    }
}
