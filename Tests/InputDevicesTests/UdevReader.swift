import Glibc

/// How systemd's udev reads an `ATTRS{…}==` value from a rule line and matches an attribute with it
/// (udev-util.c's udev_rule_parse_value, udev-rules.c's token matching), so that the tests check the
/// rules `UdevRule` writes the way udev will read them.
enum UdevReader {
    /// The value of `ATTRS{attribute}==` in `line`, unescaped: `"…"` turns `\"` into `"` and keeps other
    /// backslashes; `e"…"` is C-escaped.
    static func value(of attribute: String, in line: String) -> String? {
        guard let start = line.range(of: "ATTRS{\(attribute)}==") else { return nil }
        var characters = line[start.upperBound...].makeIterator()
        var first = characters.next()
        let escaped = first == "e"
        if escaped { first = characters.next() }
        guard first == "\"" else { return nil }
        var value = ""
        while let character = characters.next() {
            switch character {
            case "\"": return value
            case "\\" where escaped:
                guard let next = characters.next() else { return nil }
                if next == "x" {
                    let digits = String([characters.next(), characters.next()].compactMap { $0 })
                    value.unicodeScalars.append(Unicode.Scalar(UInt8(digits, radix: 16)!))
                } else {
                    value.append(next)
                }
            case "\\":
                guard let next = characters.next() else { return nil }
                value += next == "\"" ? "\"" : "\\\(next)"
                if next == "\"" { continue }
            default: value.append(character)
            }
        }
        return nil
    }

    /// Whether udev's match `pattern` accepts the attribute's `value`: `|` separates alternatives; with
    /// any of `*?[` each is an fnmatch glob, else compared as it is; trailing whitespace of the value
    /// is ignored unless the pattern ends in some.
    static func matches(_ pattern: String, _ value: String) -> Bool {
        let value = pattern.last?.isWhitespace == true ? value : String(value.reversed().drop(while: \.isWhitespace).reversed())
        let isGlob = pattern.contains { "*?[".contains($0) }
        return pattern.split(separator: "|", omittingEmptySubsequences: false).contains { alternative in
            isGlob ? fnmatch(String(alternative), value, 0) == 0 : alternative == value
        }
    }
}
