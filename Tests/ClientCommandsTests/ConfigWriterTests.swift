import Foundation
import GuardConfig
import GuardSettings
import Testing

@testable import ClientCommands

/// `learn --write`'s writer on real files in a directory of the test's own.
@Suite("Writing the learned settings into the user's file")
struct ConfigWriterTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("writer-\(UUID().uuidString)").path
    let settings: [(key: String, value: String)] = [("source", "\"input\"")]
    let action: [(key: String, value: String)] = [("on", "\"up\""), ("run", "[\"/bin/true\"]")]

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func writer(_ path: String) -> ConfigWriter {
        ConfigWriter(file: ConfigFile(path: path, parser: .inProcess))
    }

    func mode(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test("The file and its backup keep the file's mode")
    func modeKept() throws {
        let path = directory + "/config.toml"
        try "mode = \"always\"\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        let backup = try writer(path).write(settings, action: nil)
        #expect(try mode(path) == 0o600)
        #expect(try backup.map(mode) == 0o600, "the backup holds what the file held: it is as private")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "mode = \"always\"\nsource = \"input\"\n")
    }

    @Test("A symlinked file's target is written, and the symlink stays")
    func symlinkTargetWritten() throws {
        let target = directory + "/dotfiles-config.toml"
        let link = directory + "/config.toml"
        try "mode = \"always\"\n".write(toFile: target, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let backup = try writer(link).write(settings, action: nil)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "mode = \"always\"\nsource = \"input\"\n")
        #expect(backup == target + ".bak")
    }

    @Test("A learn run again with a command replaces the action it wrote: one action, not two")
    func actionReplaced() throws {
        let path = directory + "/config.toml"
        _ = try writer(path).write(settings, action: action)
        _ = try writer(path).write(settings, action: action)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.components(separatedBy: "[[action]]").count == 2, "\(text)")
        #expect(text.contains(ConfigWriter.actionMark))
    }

    @Test("A FIFO or a device at the file's name is refused, not read: nothing hangs and nothing is written")
    func notRegularRefused() throws {
        let fifo = directory + "/fifo.toml"
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(throws: ConfigError.self) { try writer(fifo).write(settings, action: nil) }
        let zero = directory + "/zero.toml"
        try FileManager.default.createSymbolicLink(atPath: zero, withDestinationPath: "/dev/zero")
        #expect(throws: ConfigError.self) { try writer(zero).write(settings, action: nil) }
        #expect(!FileManager.default.fileExists(atPath: fifo + ".bak"))
    }
}
