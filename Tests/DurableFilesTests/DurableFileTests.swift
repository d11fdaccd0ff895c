import DurableFiles
import Foundation
import Glibc
import SystemPackage
import Testing

@Suite("Durable file writes")
struct DurableFileTests {
    @Test("A replace creates a new file with O_EXCL|O_NOFOLLOW, writes and syncs it, renames it over the path, then syncs the directory")
    func order() {
        let plan = DurableFile.Plan.replace("/state/volume-guard/record.json", with: [1, 2], permissions: 0o600)
        #expect(
            plan.steps == [
                .create(directory: "/state/volume-guard", beside: "record.json", flags: DurableFile.Plan.createFlags, permissions: 0o600),
                .write([1, 2]), .sync, .close, .rename(over: "/state/volume-guard/record.json"), .syncDirectory("/state/volume-guard"),
            ])
        for flag in [O_CREAT, O_EXCL, O_NOFOLLOW, O_CLOEXEC, O_WRONLY] {
            #expect(DurableFile.Plan.createFlags & flag == flag, "the new file is opened with flag \(flag)")
        }
        #expect(DurableFile.Plan.createFlags & O_TRUNC == 0, "nothing that exists is ever opened, so nothing is truncated")
    }

    @Test("A writer killed after any step leaves the old file or the new one, whole, and the new one from the rename on")
    func killedAfterEachStep() throws {
        let old = Array("step = 5\n".utf8)
        let new = Array(repeating: UInt8(ascii: "x"), count: 300_000)
        let steps = DurableFile.Plan.replace("/d/f", with: new, permissions: 0o600).steps
        let renamed = try #require(steps.firstIndex(of: .rename(over: "/d/f")))
        for killedAfter in 0...steps.count {
            let directory = try Self.directory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/config.toml"
            try Data(old).write(to: URL(fileURLWithPath: path))
            var writer = DurableFile.Writer()
            for step in DurableFile.Plan.replace(path, with: new, permissions: 0o600).steps.prefix(killedAfter) { try writer.perform(step) }
            let found = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(found == (killedAfter > renamed ? new : old), "killed after \(killedAfter) steps")
        }
    }

    @Test("With no file before, a writer killed before the rename leaves none, and after it the new one whole")
    func killedWithoutAnOldFile() throws {
        let new = Array("new".utf8)
        let steps = DurableFile.Plan.replace("/d/f", with: new, permissions: 0o600).steps
        let renamed = try #require(steps.firstIndex(of: .rename(over: "/d/f")))
        for killedAfter in 0...steps.count {
            let directory = try Self.directory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/rule.rules"
            var writer = DurableFile.Writer()
            for step in DurableFile.Plan.replace(path, with: new, permissions: 0o600).steps.prefix(killedAfter) { try writer.perform(step) }
            let found = FileManager.default.contents(atPath: path).map(Array.init)
            #expect(found == (killedAfter > renamed ? new : nil), "killed after \(killedAfter) steps")
        }
    }

    @Test("The file gets the mode asked for, wider than the umask lets open make it, and nothing is left beside it")
    func mode() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let previous = umask(0o022)
        defer { umask(previous) }
        try DurableFile.replace(directory + "/70-a.rules", with: Array("rule\n".utf8), permissions: 0o664)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/70-a.rules")
        #expect(attributes[.posixPermissions] as? Int == 0o664)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["70-a.rules"])
    }

    @Test("A symlink at the path is replaced by the file, and what it pointed to is untouched")
    func symlinkReplaced() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("secret".utf8).write(to: URL(fileURLWithPath: directory + "/shadow"))
        try FileManager.default.createSymbolicLink(atPath: directory + "/record.json", withDestinationPath: directory + "/shadow")
        try DurableFile.replace(directory + "/record.json", with: Array("{}".utf8), permissions: 0o600)
        #expect(try String(contentsOfFile: directory + "/shadow", encoding: .utf8) == "secret")
        #expect(try FileManager.default.attributesOfItem(atPath: directory + "/record.json")[.type] as? FileAttributeType == .typeRegular)
        #expect(try String(contentsOfFile: directory + "/record.json", encoding: .utf8) == "{}")
    }

    @Test("A failure names the step, the path and the system's reason, and leaves nothing beside the path")
    func failure() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/in-the-way", withIntermediateDirectories: false)
        #expect(throws: DurableFile.Failure(.rename, directory + "/in-the-way", .isDirectory)) {
            try DurableFile.replace(directory + "/in-the-way", with: [1], permissions: 0o600)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["in-the-way"])
        let missing = DurableFile.Failure(.create, "/nonexistent/.x.1f", .noSuchFileOrDirectory)
        #expect(missing.description == "cannot create /nonexistent/.x.1f: No such file or directory")
    }

    @Test("A damaged file is set aside under a name of its own each time, so nothing of it is lost")
    func setAside() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/originals.json"
        for (number, name) in ["originals.json.damaged", "originals.json.damaged.1", "originals.json.damaged.2"].enumerated() {
            try Data(repeating: UInt8(number), count: 10).write(to: URL(fileURLWithPath: path))
            #expect(try DurableFile.setAside(path) == directory + "/" + name)
            #expect(FileManager.default.contents(atPath: directory + "/" + name) == Data(repeating: UInt8(number), count: 10))
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    /// A new, empty directory of the test's own.
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("durable-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }
}
