import Foundation
import Glibc
import GuardSettings
import Testing

@testable import GuardConfig

@Suite("A config file's bytes are text, or refused where they are not")
struct ConfigTextTests {
    static let nul =
        "a NUL byte, which no config file holds (a power cut during a write can leave zeros); the file is refused, "
        + "so that nothing after it is silently lost: write the file again"
    static let notUTF8 = "bytes that are not UTF-8 text; save the file as UTF-8"

    /// A new file holding `bytes`, read as the daemon reads its config file at start.
    private static func read(_ bytes: [UInt8], at path: String) throws(ConfigError) -> Options {
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return try ConfigFile(path: path, required: true).read()
    }

    private static func temporary() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("text-\(UUID().uuidString).toml").path
    }

    @Test(
        "A NUL byte is refused at its line and column, where the parser would have stopped reading",
        arguments: [
            ("step = 5\n\0\0\0\n[[action]]\nrun = [\"true\"]\n", 2, 1), ("step = 5 # a comment\0\n", 1, 21),
            ("sink = \"caf\u{e9}\0\"\n", 1, 13), ("\n\n[[action]]\nrun = [\"a\", \"b\0\"]\n", 4, 15),
        ])
    func nulByte(_ text: String, line: Int, column: Int) {
        let path = FileManager.default.temporaryDirectory.path + "/nul.toml"
        #expect(throws: ConfigError(path: path, line: line, column: column, message: Self.nul)) {
            _ = try ConfigFile.text(of: Array(text.utf8), path: path)
        }
        #expect(throws: ConfigError(path: "learned.toml", line: line, column: column, message: Self.nul), "nor is one parsed from a text") {
            try ConfigFile.parse(text, path: "learned.toml")
        }
    }

    @Test("A file of 4,096 zero bytes, as a power cut leaves one, is refused, not read as an empty file of defaults")
    func zeros() {
        let path = Self.temporary()
        defer { unlink(path) }
        #expect(throws: ConfigError(path: path, line: 1, column: 1, message: Self.nul)) {
            try Self.read([UInt8](repeating: 0, count: 4096), at: path)
        }
    }

    /// Each with the line and column of its first byte that is not UTF-8; typed, so that Swift 6.2.3 (the
    /// arm64 build's compiler) type-checks it in time.
    static let notUTF8Cases: [([UInt8], Int, Int)] = [
        (Array("step = 5\n# caf".utf8) + [0xE9, 0x0A], 2, 6), ([0x80], 1, 1), (Array("a = \"".utf8) + [0xC0, 0xAF, 0x22], 1, 6),
        (Array("# é".utf8) + [0xED, 0xA0, 0x80], 1, 4), (Array("step = 5\n\n#".utf8) + [0xE2, 0x82], 3, 2),
    ]

    @Test(
        "Bytes that are not UTF-8 are refused at the first of them: Latin-1, a lone continuation, an overlong form, a surrogate, a cut sequence",
        arguments: notUTF8Cases)
    func notUTF8(_ bytes: [UInt8], line: Int, column: Int) {
        #expect(throws: ConfigError(path: "c.toml", line: line, column: column, message: Self.notUTF8)) {
            _ = try ConfigFile.text(of: bytes, path: "c.toml")
        }
    }

    @Test("Text with tabs, carriage returns and any Unicode is read whole")
    func goodText() throws {
        let text = "# \u{1F4F7} caf\u{e9}\r\nsink\t= \"\u{e9}t\u{e9}\"\r\nstep = 5\n"
        #expect(try ConfigFile.text(of: Array(text.utf8), path: "c.toml") == text)
        let path = Self.temporary()
        defer { unlink(path) }
        #expect(try Self.read(Array(text.utf8), at: path).step == 5)
    }

    @Test("A control character other than tab is refused by the TOML parser itself, at its line and column")
    func controlCharacters() {
        for (text, line, column) in [
            ("step = 5\n# \u{1}\n", 2, 3), ("sink = \"a\u{7f}\"\n", 1, 10), ("\u{c}step = 5\n", 1, 1), ("sink = \"\u{e9}\u{1}\"\n", 1, 10),
        ] {
            #expect(
                performing: { try ConfigFile.parse(text, path: "c.toml") },
                throws: { error in
                    guard let error = error as? ConfigError else { return false }
                    return error.line == line && error.column == column
                })
        }
    }
}
