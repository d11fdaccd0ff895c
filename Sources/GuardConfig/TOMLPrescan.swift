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
            if scanner.string == nil, case .statementStart = scanner.place { starts.append(true) } else { starts.append(false) }
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

        let limit: Int
        var line = 1
        var place = Place.statementStart
        /// The depth of the current table: the last header's segments.
        var tableDepth = 0
        /// A value's open arrays and inline tables: the depth each stands at, and whether it is a table.
        var open: [(depth: Int, isTable: Bool)] = []
        /// The depth a value read now stands at: its key's, or its array's.
        var valueDepth = 0
        var string: StringKind?
        var escaped = false
        /// Quotes seen in a row, to find `"""`, `'''` and their ends.
        var quotes = 0
        var inComment = false
        /// A key's segment starts next (after `[`, `[[`, `.`, or `{` and `,` in an inline table); blanks
        /// may come first. `headerOpen`: just after a header's first `[`, where a second makes `[[`.
        var keyExpected = false
        var headerOpen = false
        var finding: Finding?

        mutating func take(_ byte: UInt8) {
            if byte == UInt8(ascii: "\n") { line += 1 }
            if string != nil {
                takeInString(byte)
                return
            }
            if inComment {
                if byte == UInt8(ascii: "\n") {
                    inComment = false
                    endOfLine()
                }
                return
            }
            if keyExpected && !takeKeyStart(byte) { return }
            switch byte {
            case UInt8(ascii: "#"): inComment = true
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
        private mutating func takeKeyStart(_ byte: UInt8) -> Bool {
            let opening = headerOpen
            headerOpen = false
            if isBlank(byte) { return false }
            // The line's end: `endOfLine` judges a header left without its key.
            if byte == UInt8(ascii: "\n") { return true }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                keyExpected = false
                return true
            case UInt8(ascii: "[") where opening:
                return false
            case UInt8(ascii: "}"):
                if case .key = place, open.last?.isTable == true {
                    keyExpected = false
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
                keyExpected = true
                headerOpen = true
            case (.statementStart, _) where !isBlank(byte):
                place = .key(base: tableDepth, segments: 1)
            case (.header(let segments), UInt8(ascii: ".")):
                place = .header(segments: segments + 1)
                keyExpected = true
                check(segments + 1)
            case (.header(let segments), UInt8(ascii: "]")):
                tableDepth = segments
                place = .afterHeader
            case (.key(let base, let segments), UInt8(ascii: ".")):
                place = .key(base: base, segments: segments + 1)
                keyExpected = true
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
                    keyExpected = true
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
                    keyExpected = true
                }
            default:
                break
            }
        }

        /// A line ends: a statement ends with it, unless a value's array is still open.
        private mutating func endOfLine() {
            if keyExpected, case .header = place { finding = finding ?? .keyStart(line: line - 1) }
            keyExpected = false
            if case .value = place, !open.isEmpty { return }
            if case .key = place, !open.isEmpty { return }
            open = []
            place = .statementStart
        }

        private mutating func startString(_ quote: UInt8) {
            // `""` then a third: a multi-line string; `""` alone is an empty string, already closed.
            string = quote == UInt8(ascii: "\"") ? .basic : .literal
            quotes = 1
            escaped = false
        }

        private mutating func takeInString(_ byte: UInt8) {
            let quote: UInt8 = (string == .basic || string == .multilineBasic) ? UInt8(ascii: "\"") : UInt8(ascii: "'")
            switch string {
            case .basic, .literal:
                if quotes > 0 {
                    // Just after the opening quote: a second quote is an empty string or a multi-line start.
                    if byte == quote {
                        quotes += 1
                        if quotes == 3 {
                            string = string == .basic ? .multilineBasic : .multilineLiteral
                            quotes = 0
                        }
                        return
                    }
                    if quotes == 2 {
                        // `""`: an empty string, closed; this byte is outside it.
                        string = nil
                        quotes = 0
                        retake(byte)
                        return
                    }
                    quotes = 0
                }
                if escaped {
                    escaped = false
                } else if string == .basic && byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == quote || byte == UInt8(ascii: "\n") {
                    // Closed, or left open at the line's end: the parser stops there.
                    string = nil
                    if byte == UInt8(ascii: "\n") { endOfLine() }
                }
            case .multilineBasic, .multilineLiteral:
                if escaped {
                    escaped = false
                    return
                }
                if string == .multilineBasic && byte == UInt8(ascii: "\\") {
                    escaped = true
                    quotes = 0
                    return
                }
                if byte == quote {
                    quotes += 1
                } else {
                    // Three quotes or more end it (up to two of them are its last characters).
                    if quotes >= 3 {
                        string = nil
                        quotes = 0
                        retake(byte)
                        return
                    }
                    quotes = 0
                }
            case nil:
                break
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
