import GuardSettings

/// The bytes a config file may hold, checked before anything parses them.
///
/// toml++ is handed the text as a C string: it stops at the first NUL byte and never sees what follows.
/// Three NUL bytes before an `[[action]]` would drop the action silently, and a file a power cut left
/// full of zeros (ext4's delayed allocation) would read as an empty one: the defaults. So a NUL byte, like
/// bytes that are not UTF-8, is refused here with its line and column. The other control characters TOML
/// forbids toml++ refuses itself, with their place.
extension ConfigFile {
    /// `bytes` as text, or the place of the first byte a config file may not hold.
    package static func text(of bytes: [UInt8], path: String) throws(ConfigError) -> String {
        if let flaw = TextFlaw.first(in: bytes) { throw flaw.error(path: path) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The first byte of a file that is not text a config file may hold, and where it is.
struct TextFlaw: Equatable {
    enum Kind: Equatable {
        case nul
        case notUTF8
    }

    let kind: Kind
    /// 1-based, counted as toml++ counts them: lines end at a newline, columns are Unicode scalars.
    let line: Int
    let column: Int

    /// The first flaw in `bytes`; nil when they are UTF-8 with no NUL.
    static func first(in bytes: some Sequence<UInt8>) -> TextFlaw? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var line = 1
        var column = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue("\n"):
                line += 1
                column = 1
            case .scalarValue("\0"):
                return TextFlaw(kind: .nul, line: line, column: column)
            case .scalarValue:
                column += 1
            case .error:
                return TextFlaw(kind: .notUTF8, line: line, column: column)
            case .emptyInput:
                return nil
            }
        }
    }

    func error(path: String) -> ConfigError {
        let message =
            switch kind {
            case .nul:
                "a NUL byte, which no config file holds (a power cut during a write can leave zeros); the file is refused, "
                    + "so that nothing after it is silently lost: write the file again"
            case .notUTF8: "bytes that are not UTF-8 text; save the file as UTF-8"
            }
        return ConfigError(path: path, line: line, column: column, message: message)
    }
}
