/// What a TOML text must not hand toml++, found before the parser sees it: nesting too deep, and a key
/// that starts with what no key starts with.
///
/// toml++ limits the nesting of arrays and inline tables (256), but not of tables made by dotted keys:
/// `[a.a.a…]` makes one table a segment, and both its parse and its tables' destructor recurse once a
/// level. Twenty thousand segments (a 40 kB file) overflow any thread's stack. A config file nests two
/// levels deep (`[[action]]`), so a file deeper than `limit` is refused here, by line, before the
/// parser recurses.
///
/// toml++ also asserts (and aborts the process) where a table header's key starts with neither a bare
/// key's character nor a quote (`[[ [a]]`, found by fuzzing); other keys it checks itself. Every key
/// start is held to that here.
///
/// The count is a TOML lexer's: strings (basic, literal, multi-line) and comments hide what they hold,
/// a dot counts as a level only between the segments of a key (a table header's, a key's, an inline
/// table's), and every `[` and `{` of a value counts one. Where the text is not TOML, the count is
/// still an upper bound of what the parser builds before it stops at the mistake.
enum TOMLPrescan {
    /// Deeper than any config file needs, and far below what the daemon's 1 MB thread stacks hold.
    static let limit = 32

    /// What is wrong, and on which line (1-based).
    enum Finding: Hashable {
        case tooDeep(line: Int)
        case keyStart(line: Int)
    }

    /// The first thing wrong in `text`, if any.
    static func check(_ text: String, limit: Int = limit) -> Finding? {
        var scanner = Scanner(limit: limit)
        for byte in text.utf8 {
            scanner.take(byte)
            if let finding = scanner.finding { return finding }
        }
        return nil
    }

    /// For each line of `text` (as split at `\n`), whether it begins a statement: not inside a string
    /// or a value an earlier line left open. Only such a line is a key or a header; `ConfigEdit` edits
    /// no other, so that a line in a multi-line string that looks like a key is never rewritten.
    static func statementStarts(_ text: String) -> [Bool] {
        var scanner = Scanner(limit: .max)
        var starts = [true]
        for byte in text.utf8 {
            scanner.take(byte)
            guard byte == UInt8(ascii: "\n") else { continue }
            let inString = if case .string = scanner.token { true } else { false }
            if !inString, case .statementStart = scanner.place { starts.append(true) } else { starts.append(false) }
        }
        return starts
    }

    private struct Scanner {
        /// Where the scanner is in the text.
        enum Place {
            /// Before a statement: a header, a key, or nothing (blank line, comment).
            case statementStart
            /// In a table header's key, `segments` so far.
            case header(segments: Int)
            /// In a key (top level or in an inline table), `segments` so far, on top of `base`.
            case key(base: Int, segments: Int)
            /// In a value, which stands at `valueDepth`.
            case value
            /// After a header's closing bracket, to the end of the line.
            case afterHeader
        }

        enum StringKind { case basic, literal, multilineBasic, multilineLiteral }

        /// What the byte read now belongs to: a string or a comment hides the text's structure, and a
        /// key's segment may be due to start.
        enum Token {
            /// The text's structure: a header, a key, a value.
            case structure
            /// A key's segment starts next (after `[`, `[[`, `.`, or `{` and `,` in an inline table);
            /// blanks may come first. `headerOpen`: just after a header's first `[`, where a second makes
            /// `[[`.
            case keyExpected(headerOpen: Bool)
            /// In a comment, to the end of the line.
            case comment
            /// In a string; `quotes`: quotes seen in a row, to find `"""`, `'''` and their ends;
            /// `escaped`: just after a backslash of a basic string.
            case string(StringKind, quotes: Int, escaped: Bool)
        }

        let limit: Int
        var line = 1
        var place = Place.statementStart
        /// The depth of the current table: the last header's segments.
        var tableDepth = 0
        /// A value's open arrays and inline tables: the depth each stands at, and whether it is a table.
        var open: [(depth: Int, isTable: Bool)] = []
        /// The depth a value read now stands at: its key's, or its array's.
        var valueDepth = 0
        var token = Token.structure
        var finding: Finding?

        mutating func take(_ byte: UInt8) {
            if byte == UInt8(ascii: "\n") { line += 1 }
            switch token {
            case .string(let kind, let quotes, let escaped):
                takeInString(byte, kind, quotes: quotes, escaped: escaped)
                return
            case .comment:
                if byte == UInt8(ascii: "\n") {
                    token = .structure
                    endOfLine()
                }
                return
            case .keyExpected(let headerOpen):
                if !takeKeyStart(byte, opening: headerOpen) { return }
            case .structure:
                break
            }
            switch byte {
            case UInt8(ascii: "#"): token = .comment
            case UInt8(ascii: "\n"): endOfLine()
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                // A quoted key starts a statement as a bare one does.
                if case .statementStart = place { place = .key(base: tableDepth, segments: 1) }
                startString(byte)
            default: takeStructure(byte)
            }
        }

        /// A byte where a key is to start: blanks wait, a quote or a bare key's character starts it (and is
        /// taken as usual: true), `[[`'s second bracket and an inline table's `}` are no key; anything else
        /// is refused.
        private mutating func takeKeyStart(_ byte: UInt8, opening: Bool) -> Bool {
            token = .keyExpected(headerOpen: false)
            if isBlank(byte) { return false }
            // The line's end: `endOfLine` judges a header left without its key.
            if byte == UInt8(ascii: "\n") { return true }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                token = .structure
                return true
            case UInt8(ascii: "[") where opening:
                return false
            case UInt8(ascii: "}"):
                if case .key = place, open.last?.isTable == true {
                    token = .structure
                    return true
                }
            default:
                break
            }
            finding = .keyStart(line: line)
            return false
        }

        private mutating func takeStructure(_ byte: UInt8) {
            switch (place, byte) {
            case (.statementStart, UInt8(ascii: "[")):
                place = .header(segments: 1)
                token = .keyExpected(headerOpen: true)
            case (.statementStart, _) where !isBlank(byte):
                place = .key(base: tableDepth, segments: 1)
            case (.header(let segments), UInt8(ascii: ".")):
                place = .header(segments: segments + 1)
                token = .keyExpected(headerOpen: false)
                check(segments + 1)
            case (.header(let segments), UInt8(ascii: "]")):
                tableDepth = segments
                place = .afterHeader
            case (.key(let base, let segments), UInt8(ascii: ".")):
                place = .key(base: base, segments: segments + 1)
                token = .keyExpected(headerOpen: false)
                check(base + segments + 1)
            case (.key(let base, let segments), UInt8(ascii: "=")):
                valueDepth = base + segments
                place = .value
            case (.value, UInt8(ascii: "[")), (.value, UInt8(ascii: "{")):
                let depth = valueDepth + 1
                check(depth)
                let isTable = byte == UInt8(ascii: "{")
                open.append((depth, isTable))
                if isTable {
                    place = .key(base: depth, segments: 1)
                    token = .keyExpected(headerOpen: false)
                } else {
                    valueDepth = depth
                }
            case (.value, UInt8(ascii: "]")), (.value, UInt8(ascii: "}")), (.key, UInt8(ascii: "}")):
                // `}` in a key: an empty inline table, or one closed after a trailing comma.
                _ = open.popLast()
                valueDepth = open.last?.depth ?? valueDepth
                place = .value
            case (.value, UInt8(ascii: ",")):
                if let inner = open.last, inner.isTable {
                    place = .key(base: inner.depth, segments: 1)
                    token = .keyExpected(headerOpen: false)
                }
            default:
                break
            }
        }

        /// A line ends: a statement ends with it, unless a value's array is still open.
        private mutating func endOfLine() {
            if case .keyExpected = token, case .header = place { finding = finding ?? .keyStart(line: line - 1) }
            token = .structure
            if case .value = place, !open.isEmpty { return }
            if case .key = place, !open.isEmpty { return }
            open = []
            place = .statementStart
        }

        private mutating func startString(_ quote: UInt8) {
            // `""` then a third: a multi-line string; `""` alone is an empty string, already closed.
            token = .string(quote == UInt8(ascii: "\"") ? .basic : .literal, quotes: 1, escaped: false)
        }

        private mutating func takeInString(_ byte: UInt8, _ kind: StringKind, quotes: Int, escaped: Bool) {
            let quote: UInt8 = (kind == .basic || kind == .multilineBasic) ? UInt8(ascii: "\"") : UInt8(ascii: "'")
            switch kind {
            case .basic, .literal:
                if quotes > 0 {
                    // Just after the opening quote: a second quote is an empty string or a multi-line start.
                    if byte == quote {
                        let multiline: StringKind = kind == .basic ? .multilineBasic : .multilineLiteral
                        token = quotes + 1 == 3 ? .string(multiline, quotes: 0, escaped: escaped) : .string(kind, quotes: quotes + 1, escaped: escaped)
                        return
                    }
                    if quotes == 2 {
                        // `""`: an empty string, closed; this byte is outside it.
                        token = .structure
                        retake(byte)
                        return
                    }
                }
                if escaped {
                    token = .string(kind, quotes: 0, escaped: false)
                } else if kind == .basic && byte == UInt8(ascii: "\\") {
                    token = .string(kind, quotes: 0, escaped: true)
                } else if byte == quote || byte == UInt8(ascii: "\n") {
                    // Closed, or left open at the line's end: the parser stops there.
                    token = .structure
                    if byte == UInt8(ascii: "\n") { endOfLine() }
                } else {
                    token = .string(kind, quotes: 0, escaped: false)
                }
            case .multilineBasic, .multilineLiteral:
                if escaped {
                    token = .string(kind, quotes: quotes, escaped: false)
                    return
                }
                if kind == .multilineBasic && byte == UInt8(ascii: "\\") {
                    token = .string(kind, quotes: 0, escaped: true)
                    return
                }
                if byte == quote {
                    token = .string(kind, quotes: quotes + 1, escaped: false)
                } else {
                    // Three quotes or more end it (up to two of them are its last characters).
                    if quotes >= 3 {
                        token = .structure
                        retake(byte)
                        return
                    }
                    token = .string(kind, quotes: 0, escaped: false)
                }
            }
        }

        /// A byte that showed a string had ended before it: taken again, outside the string.
        private mutating func retake(_ byte: UInt8) {
            if byte == UInt8(ascii: "\n") { line -= 1 }
            take(byte)
        }

        private mutating func check(_ depth: Int) {
            if depth > limit && finding == nil { finding = .tooDeep(line: line) }
        }

        private func isBlank(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
        }
    }
}
