/// Sets top-level keys of a config file's text and keeps every other line as it was: the user's comments,
/// order and tables. `learn --write` writes its result so.
///
/// A key already set at the top of the file (before the first `[table]` or `[[array]]` header) has its
/// whole value replaced, a multi-line array included; a key not set yet is added after the top's last
/// line. Only a line that begins a statement is read as a key or a header (`TOMLPrescan`): a line inside
/// a multi-line string is the string's, never edited. The values are TOML as written (`"input"`, `["AB Shutter3"]`); the caller checks the result as
/// `config` does, since a text this light reading misjudges is then refused, not written.
public enum ConfigEdit {
    /// `text` with each of `settings` (key, TOML value) set at its top.
    public static func setting(_ settings: [(key: String, value: String)], in text: String) -> String {
        var file = Lines(text)
        for (key, value) in settings {
            let top = file.firstHeader ?? file.lines.endIndex
            if let start = file.lines.indices[..<top].first(where: { file.kind($0) == .key(key) }) {
                file.replace(start...file.valueEnd(from: start), with: ["\(key) = \(value)"])
            } else {
                file.replace(insertion(file, top: top)..<insertion(file, top: top), with: ["\(key) = \(value)"])
            }
        }
        return file.text
    }

    /// `text` with a `[[name]]` table of `entries` (key, TOML value) led by the comment line `mark`: in
    /// place of the table that `mark` leads already, with whatever the user changed in it, else added at
    /// the end after an empty line. So the table a program wrote is replaced when it writes again, never
    /// written twice; a user who removes `mark` makes the table theirs.
    public static func placing(table name: String, marked mark: String, _ entries: [(key: String, value: String)], in text: String) -> String {
        let table = [mark, "[[\(name)]]"] + entries.map { "\($0.key) = \($0.value)" }
        var file = Lines(text)
        if let marked = file.lines.indices.first(where: { file.starts[$0] && file.lines[$0] == mark }),
            let header = file.lines.indices[(marked + 1)...].first(where: { file.kind($0) != .other || !file.isBlankOrComment($0) }),
            file.kind(header) == .header(name, array: true)
        {
            var end = file.lines.indices[(header + 1)...].first { if case .header = file.kind($0) { true } else { false } } ?? file.lines.endIndex
            // The blank lines and comments before the next table lead into it.
            while end > header + 1, file.isBlankOrComment(end - 1) { end -= 1 }
            file.replace(marked..<end, with: table)
        } else {
            let at = file.lines.endIndex
            file.replace(at..<at, with: (file.lines.isEmpty ? [] : [""]) + table)
        }
        return file.text
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
    private static func insertion(_ file: Lines, top: Int) -> Int {
        if let last = file.lines.indices[..<top].last(where: { if case .key = file.kind($0) { true } else { false } }) {
            return file.valueEnd(from: last) + 1
        }
        guard top < file.lines.endIndex else { return top }
        var at = top
        while at > 0, file.starts[at - 1], file.lines[at - 1].trimmingPrefix(while: \.isWhitespace).hasPrefix("#") { at -= 1 }
        return at
    }
}

/// A text's lines, each known to begin a statement or not (`TOMLPrescan.statementStarts`).
private struct Lines {
    private(set) var lines: [String]
    private(set) var starts: [Bool]

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        starts = Array(TOMLPrescan.statementStarts(text).prefix(lines.count))
    }

    var text: String { lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n" }

    /// What line `index` is: a key or a header only where it begins a statement.
    func kind(_ index: Int) -> ConfigLines.Line {
        starts[index] ? ConfigLines.classify(Substring(lines[index])) : .other
    }

    var firstHeader: Int? {
        lines.indices.first { if case .header = kind($0) { true } else { false } }
    }

    /// The last line of the value whose key is on line `start`: the line before the next statement.
    func valueEnd(from start: Int) -> Int {
        (lines.indices[(start + 1)...].first { starts[$0] } ?? lines.endIndex) - 1
    }

    /// Whether line `index` begins a statement and holds nothing but blanks or a comment.
    func isBlankOrComment(_ index: Int) -> Bool {
        let trimmed = lines[index].trimmingPrefix(while: \.isWhitespace)
        return starts[index] && (trimmed.isEmpty || trimmed.hasPrefix("#"))
    }

    /// Replaces the lines of `range` with `new`, and reads which lines begin a statement anew.
    mutating func replace<Range: RangeExpression<Int>>(_ range: Range, with new: [String]) {
        lines.replaceSubrange(range, with: new)
        self = Lines(text)
    }
}
