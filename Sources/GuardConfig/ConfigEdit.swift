/// Sets top-level keys of a config file's text and keeps every other line as it was: the user's comments,
/// order and tables. `learn --write` writes its result so.
///
/// A key already set at the top of the file (before the first `[table]` or `[[array]]` header) has its
/// whole value replaced, a multi-line array included; a key not set yet is added after the top's last
/// line. The values are TOML as written (`"input"`, `["AB Shutter3"]`); the caller checks the result as
/// `config` does, since a text this light reading misjudges is then refused, not written.
public enum ConfigEdit {
    /// `text` with each of `settings` (key, TOML value) set at its top.
    public static func setting(_ settings: [(key: String, value: String)], in text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        for (key, value) in settings {
            let line = "\(key) = \(value)"
            let top = lines.firstIndex { if case .header = ConfigLines.classify(Substring($0)) { true } else { false } } ?? lines.endIndex
            if let start = lines[..<top].firstIndex(where: { ConfigLines.classify(Substring($0)) == .key(key) }) {
                let end = valueEnd(lines, from: start)
                lines.replaceSubrange(start...end, with: [line])
            } else {
                lines.insert(line, at: insertion(lines, top: top))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` with a `[[name]]` table of `entries` (key, TOML value) added at its end.
    public static func appending(table name: String, _ entries: [(key: String, value: String)], to text: String) -> String {
        let body = text.isEmpty || text.hasSuffix("\n") ? text : text + "\n"
        return body + (body.isEmpty ? "" : "\n") + "[[\(name)]]\n" + entries.map { "\($0.key) = \($0.value)\n" }.joined()
    }

    /// `text` as a TOML basic string: quoted, with `"`, `\` and control characters escaped.
    public static func string(_ text: String) -> String {
        let escaped = text.unicodeScalars.reduce(into: "") { escaped, scalar in
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                let digits = String(scalar.value, radix: 16, uppercase: true)
                escaped += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\"" + escaped + "\""
    }

    /// `texts` as a TOML array of basic strings, on one line.
    public static func list(_ texts: [String]) -> String {
        "[" + texts.map(string).joined(separator: ", ") + "]"
    }

    /// Where a new top-level key goes: after the value of the top's last key; with none, before the
    /// comments that lead into the first table (they describe it), or at the end of a file of no tables.
    private static func insertion(_ lines: [String], top: Int) -> Int {
        if let last = lines[..<top].lastIndex(where: { if case .key = ConfigLines.classify(Substring($0)) { true } else { false } }) {
            return valueEnd(lines, from: last) + 1
        }
        guard top < lines.endIndex else { return top }
        var at = top
        while at > 0, lines[at - 1].trimmingPrefix(while: \.isWhitespace).hasPrefix("#") { at -= 1 }
        return at
    }

    /// The index of the last line of the value whose key is on line `start`: where its brackets close,
    /// outside strings and comments.
    private static func valueEnd(_ lines: [String], from start: Int) -> Int {
        var depth = 0
        var quote: Character?
        for index in start..<lines.count {
            var escaped = false
            var seenEquals = index > start
            for character in lines[index] {
                if let open = quote {
                    if escaped {
                        escaped = false
                    } else if character == "\\" && open == "\"" {
                        escaped = true
                    } else if character == open {
                        quote = nil
                    }
                    continue
                }
                if !seenEquals {
                    seenEquals = character == "="
                    continue
                }
                switch character {
                case "\"", "'": quote = character
                case "[", "{": depth += 1
                case "]", "}": depth -= 1
                case "#": break
                default: continue
                }
                if character == "#" { break }
            }
            if depth <= 0 && quote == nil { return index }
        }
        return lines.count - 1
    }
}
