/// A udev rule's match value that matches one string exactly, as systemd's udev parses values
/// (udev-rules.c, udev-util.c).
///
/// Two layers read a value. The rule file's: a plain `"…"` value turns `\"` into `"` and keeps every
/// other backslash, so a value cannot end in one; an `e"…"` value is unescaped as C's strings are. Then
/// the match's: a value with any of `*?[` is a shell glob (fnmatch, where a backslash escapes the next
/// character), without them it is compared as it is; and `|` always separates alternatives, with no
/// escape. A `|` in a name is therefore matched by `?`, any one character: the only broadening, and a
/// name with a `|` is rare.
enum UdevPattern {
    /// The quoted value that matches `text` and nothing else (but for a `|`, see above).
    static func exactly(_ text: String) -> String {
        let globCharacters: Set<Character> = ["*", "?", "[", "|"]
        let value: String
        if text.contains(where: globCharacters.contains) {
            value = text.reduce(into: "") { escaped, character in
                switch character {
                case "|": escaped += "?"
                case "*", "?", "[", "\\": escaped += "\\\(character)"
                default: escaped.append(character)
                }
            }
        } else {
            value = text
        }
        return quoted(value)
    }

    /// The quoted value that matches the Bluetooth address `address` (lower case) in either case: the
    /// kernel writes a classic remote's in lower case, BlueZ a Bluetooth LE one's in upper case.
    static func anyCase(address: String) -> String {
        quoted(
            address.reduce(into: "") { pattern, character in
                if character.isLetter {
                    pattern += "[\(character)\(character.uppercased())]"
                } else {
                    pattern.append(character)
                }
            })
    }

    /// `value` as the rule file writes it: plain when it can be, C-escaped (`e"…"`) when it has a
    /// backslash or a control character.
    static func quoted(_ value: String) -> String {
        let needsEscapes = value.unicodeScalars.contains { $0 == "\\" || $0.value < 0x20 || $0.value == 0x7f }
        guard needsEscapes else { return "\"" + value.replacing("\"", with: "\\\"") + "\"" }
        let escaped = value.unicodeScalars.reduce(into: "") { escaped, scalar in
            switch scalar {
            case "\\", "\"": escaped += "\\\(scalar)"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f: escaped += "\\x" + hex(scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "e\"" + escaped + "\""
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }
}
