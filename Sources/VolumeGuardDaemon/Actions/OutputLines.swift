/// Cuts a program's output into lines for the log, in bounded memory: an action that writes megabytes
/// without a newline (an image to stdout) costs one line's worth, not megabytes.
struct OutputLines {
    /// Longer lines are logged cut to this many bytes, with a mark.
    static let maximumLength = 4096

    private var pending: [UInt8] = []
    /// The line being read was already logged, cut: skip to its end.
    private var skipping = false

    /// The lines completed by `bytes`.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [String] {
        var lines: [String] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !skipping { lines.append(text(of: pending)) }
                pending.removeAll(keepingCapacity: true)
                skipping = false
            } else if skipping {
                continue
            } else if pending.count == Self.maximumLength {
                lines.append(text(of: pending) + " [cut]")
                pending.removeAll(keepingCapacity: true)
                skipping = true
            } else {
                pending.append(byte)
            }
        }
        return lines
    }

    /// The last line, when the output did not end with a newline.
    mutating func finish() -> String? {
        defer { pending = [] }
        return pending.isEmpty ? nil : text(of: pending)
    }

    /// Invalid UTF-8 is shown as U+FFFD; a Windows line ending loses its carriage return.
    private func text(of bytes: [UInt8]) -> String {
        String(decoding: bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes[...], as: UTF8.self)
    }
}
