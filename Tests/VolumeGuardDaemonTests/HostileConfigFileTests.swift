import Foundation
import Glibc
import GuardSettings
import Testing

@testable import GuardConfig

/// Serialized: `parserEndsEarly` lets SIGPIPE end the process, which `endlessPipe`'s writer must not meet.
@Suite("A config file can neither hang nor kill its reader", .serialized)
struct HostileConfigFileTests {
    private static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
    }

    @Test("Tables nested by a header of 20,000 dotted keys are refused by line, before the parser recurses")
    func deepHeader() {
        let text = "step = 5\n\n[" + Array(repeating: "a", count: 20_000).joined(separator: ".") + "]\n"
        #expect(throws: ConfigError(path: "deep.toml", line: 3, message: "nests tables or arrays more than 32 levels deep (a config file needs two)")) {
            try ConfigFile.parse(text, path: "deep.toml")
        }
    }

    @Test(
        "Every way TOML nests counts: headers, dotted keys, arrays, inline tables and the keys in them",
        arguments: [
            ("[" + String(repeating: "a.", count: 32) + "a]", 1),
            ("[a.b]\n" + String(repeating: "a.", count: 31) + "a = 1", 2),
            ("x = " + String(repeating: "[", count: 33), 1),
            ("x = [\n" + String(repeating: "[\n", count: 32) + "]", 32),
            ("x = " + String(repeating: "{a = ", count: 33), 1),
            ("x = {" + String(repeating: "b.b.b.b.b.b.b.b = {", count: 4) + "}", 1),
            ("x = [{}, {a = [" + String(repeating: "[", count: 30) + "]}]", 1),
        ])
    func deep(_ text: String, line: Int) {
        #expect(TOMLPrescan.check(text) == .tooDeep(line: line))
    }

    @Test(
        "What strings and comments hold does not count, and real files pass",
        arguments: [
            "a = \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"",
            "a = '{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{'",
            "a = \"\"\"\n[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n\"\"\"",
            "a = '''\n" + String(repeating: "a.", count: 40) + "\n'''",
            "# [" + String(repeating: "a.", count: 40) + "a]",
            "\"" + String(repeating: "a.", count: 40) + "\" = 1",
            "a = \"\\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"",
            "a = \"\"\n" + "b = [" + String(repeating: "1.5, ", count: 100) + "]",
            "[[action]]\nname = \"photo\"\nrun = [\"gphoto2\", \"--capture-image\"]\n[[action]]\non = [\"up\", \"down\"]",
            "[ a . \"b\" . 'c' ]\nx = { y = 1, z = {} }\n[[ d ]]\n",
        ])
    func shallow(_ text: String) {
        #expect(TOMLPrescan.check(text) == nil)
    }

    @Test(
        "A key that starts with what no key starts with is refused by line: toml++ would abort on some",
        arguments: [("[[ [\"AB Shutter3\"]\n", 1), ("a = 1\n[a. [b]]", 2), ("[]", 1), ("x = { [ = 1 }", 1), ("[a.\nb]", 1)])
    func keyStart(_ text: String, line: Int) {
        #expect(TOMLPrescan.check(text) == .keyStart(line: line))
    }

    @Test("A file larger than 1 MiB is refused with the limit, before it is read")
    func tooLarge() throws {
        let path = Self.temporary("large.toml")
        defer { unlink(path) }
        try Data(repeating: UInt8(ascii: "#"), count: ConfigFile.sizeLimit + 1).write(to: URL(fileURLWithPath: path))
        #expect(
            throws: ConfigError(path: path, message: "is too large: 1048577 bytes, more than a config file may hold (1048576 bytes, 1 MiB)")
        ) { try ConfigFile(path: path).read() }
    }

    @Test("A device is not read, but /dev/null is: /dev/zero would never end")
    func devices() throws {
        #expect(throws: ConfigError(path: "/dev/zero", message: "is not a regular file (of the devices, only /dev/null is read)")) {
            try ConfigFile(path: "/dev/zero", required: true).read()
        }
        #expect(try ConfigFile(path: "/dev/null", required: true).read(.reload) == Options())
    }

    @Test("A pipe is read once at start, to its end; a reload refuses it")
    func pipe() throws {
        let pipe = Pipe()
        let path = "/proc/self/fd/\(pipe.fileHandleForReading.fileDescriptor)"
        try pipe.fileHandleForWriting.write(contentsOf: Data("step = 7\n".utf8))
        try pipe.fileHandleForWriting.close()
        #expect(try ConfigFile(path: path, required: true).read(.start).step == 7)
        #expect(throws: ConfigError(path: path, message: "is a pipe: it was read once at start, and a reload reads only a regular file")) {
            try ConfigFile(path: path, required: true).read(.reload)
        }
    }

    @Test("A FIFO is refused on a reload at once, with no writer: the open does not wait for one")
    func fifoOnReload() throws {
        let path = Self.temporary("config.fifo")
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        #expect(throws: ConfigError(path: path, message: "is a pipe: it was read once at start, and a reload reads only a regular file")) {
            try ConfigFile(path: path, required: true).read(.reload)
        }
    }

    @Test("A parser that ends before it has read a large file is a mistake: no SIGPIPE ends the reader")
    func parserEndsEarly() {
        // SIGPIPE as in a fresh process, which it ends: as it would end the daemon on a reload.
        let previous = signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, previous) }
        let text = String(repeating: "# a comment\n", count: 80_000)
        #expect(throws: ConfigError(path: "-x.toml", message: "cannot be parsed: the parser ended without an answer")) {
            try ConfigFile(path: "-x.toml", parser: .child(executable: "/bin/true")).parse(text: text)
        }
    }

    @Test("A pipe that holds more than 1 MiB is refused once it has", .timeLimit(.minutes(1)))
    func endlessPipe() throws {
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting
        let thread = Thread {
            let chunk = Data(repeating: UInt8(ascii: "#"), count: 64 * 1024)
            while (try? writer.write(contentsOf: chunk)) != nil {}
        }
        signal(SIGPIPE, SIG_IGN)
        thread.start()
        let path = "/proc/self/fd/\(pipe.fileHandleForReading.fileDescriptor)"
        #expect(throws: ConfigError(path: path, message: "is too large: more than a config file may hold (1048576 bytes, 1 MiB)")) {
            try ConfigFile(path: path, required: true).read(.start)
        }
        try pipe.fileHandleForReading.close()
    }
}
