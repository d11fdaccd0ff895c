/// Finds the line a key is on in a TOML text, for error messages: the TOML parser tells where syntax
/// goes wrong, but not where a well-formed key with a bad value or an unknown name was written.
///
/// A light reading of the text that is right for what config files hold: keys at the start of a line
/// (bare or quoted, possibly dotted), `[table]` and `[[array]]` headers, on the lines that begin a
/// statement (`TOMLPrescan.statementStarts`): a line inside a multi-line string is the string's.
struct ConfigLines {
    /// Where a key lives: at the top of the file, or in the n-th (1-based) `[[name]]` element.
    enum Table: Hashable {
        case root
        case element(String, Int)
    }

    enum Line: Equatable {
        /// `[name...]` or `[[name...]]`: the first component of the name, and whether it is an array.
        case header(String, array: Bool)
        /// `key = ...` or `key.sub = ...`: the first component of the key.
        case key(String)
        case other
    }

    private let lines: [Line]

    init(_ text: String) {
        let starts = TOMLPrescan.statementStarts(text)
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { starts[$0.offset] ? Self.classify($0.element) : .other }
    }

    /// The 1-based line where `key` is set in `table`; for a key that is a table of its own, the line
    /// of its header. Falls back to the table's own line when the key cannot be found.
    func line(of key: String, in table: Table) -> Int? {
        guard let range = span(of: table) else {
            if case .element(let name, _) = table { return line(of: name, in: .root) }
            return nil
        }
        if let found = range.first(where: { lines[$0] == .key(key) }) { return found + 1 }
        if case .root = table,
            let header = lines.indices.first(where: {
                if case .header(key, _) = lines[$0] { true } else { false }
            })
        {
            return header + 1
        }
        return line(of: table)
    }

    /// The 1-based line of `table`'s header; nil for the root, which has none.
    func line(of table: Table) -> Int? {
        guard case .element = table, let range = span(of: table) else { return nil }
        return range.lowerBound
    }

    /// The indices of the lines that belong to `table`, after its header; nil when it has no header of
    /// its own (an inline array of tables).
    private func span(of table: Table) -> Range<Int>? {
        let start: Int
        switch table {
        case .root:
            start = 0
        case .element(let name, let number):
            let headers = lines.indices.filter { lines[$0] == .header(name, array: true) }
            guard number >= 1, number <= headers.count else { return nil }
            start = headers[number - 1] + 1
        }
        let end = lines[start...].firstIndex { if case .header = $0 { true } else { false } } ?? lines.endIndex
        return start..<end
    }

    static func classify(_ text: Substring) -> Line {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        if trimmed.hasPrefix("[") {
            let array = trimmed.hasPrefix("[[")
            let body = trimmed.dropFirst(array ? 2 : 1)
            guard let (name, _) = firstKey(body.drop { $0 == " " || $0 == "\t" }) else { return .other }
            return .header(name, array: array)
        }
        guard let (name, rest) = firstKey(trimmed) else { return .other }
        let next = rest.drop { $0 == " " || $0 == "\t" }.first
        return next == "=" || next == "." ? .key(name) : .other
    }

    /// The first key component of `text` (bare, or quoted with `"` or `'`) and what follows it.
    private static func firstKey(_ text: Substring) -> (String, Substring)? {
        guard let first = text.first else { return nil }
        if first == "\"" || first == "'" {
            let body = text.dropFirst()
            guard let close = body.firstIndex(of: first) else { return nil }
            return (String(body[..<close]), body[body.index(after: close)...])
        }
        let name = text.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
        guard !name.isEmpty else { return nil }
        return (String(name), text[name.endIndex...])
    }
}
