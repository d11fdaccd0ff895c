import Foundation
import Glibc
import Testing
import VolumeGuardCore

@testable import VolumeGuardDaemon

@Suite("The record file")
struct OriginalsRecordTests {
    @Test("One record per socket, under XDG_STATE_HOME")
    func path() {
        #expect(
            OriginalsRecord.standardPath(environment: ["XDG_STATE_HOME": "/s"], socketPath: "/run/user/1000/volume-guard.sock")
                == "/s/volume-guard/originals@%2Frun%2Fuser%2F1000%2Fvolume-guard.sock.json")
        #expect(
            OriginalsRecord.standardPath(environment: ["HOME": "/h"], socketPath: "/a%b")
                == "/h/.local/state/volume-guard/originals@%2Fa%25b.json")
    }

    @Test("Saved, loaded, and removed when empty; private, with nothing left beside it")
    func roundTrip() throws {
        let directory = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let record = OriginalsRecord(path: directory + "/volume-guard/originals@x.json")
        #expect(try record.load() == .levels([:]))
        let levels = [
            "guard_a": SinkLevel(volume: SinkVolume(channels: [65536, 65536]), muted: false),
            "guard_b": SinkLevel(volume: SinkVolume(channels: [98304, 1, 3]), muted: true),
        ]
        try record.save(levels)
        #expect(try record.load() == .levels(levels))
        #expect(
            try String(contentsOfFile: record.path, encoding: .utf8)
                == #"{"guard_a":{"muted":false,"volume":[65536,65536]},"guard_b":{"muted":true,"volume":[98304,1,3]}}"#)
        let attributes = try FileManager.default.attributesOfItem(atPath: record.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/volume-guard") == ["originals@x.json"])
        try record.save([:])
        #expect(!FileManager.default.fileExists(atPath: record.path))
        try record.save([:])
    }

    @Test(
        "What is no record is named and never trusted: empty, zeros, not JSON, another shape",
        arguments: [
            ([], OriginalsRecord.Damage.empty), ([UInt8](repeating: 0, count: 4096), .zeros(4096)), (Array("{\"guard_a\":".utf8), .notJSON),
            (Array("{\"guard_a\":\u{0}\u{0}".utf8), .notJSON), (Array("[1, 2]".utf8), .wrongShape),
            (Array(#"{"guard_a":{"volume":[65536]}}"#.utf8), .wrongShape),
        ])
    func damage(_ bytes: [UInt8], _ damage: OriginalsRecord.Damage) {
        #expect(throws: damage) { try OriginalsRecord.levels(in: bytes) }
    }

    @Test("A zero-filled record is set aside under a name of its own, not read, and the next one beside it too")
    func setAside() throws {
        let directory = temporaryPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let record = OriginalsRecord(path: directory + "/originals@x.json")
        try Data(repeating: 0, count: 4096).write(to: URL(fileURLWithPath: record.path))
        #expect(try record.load() == .damaged(.zeros(4096), setAside: .success(record.path + ".damaged")))
        #expect(FileManager.default.contents(atPath: record.path + ".damaged") == Data(repeating: 0, count: 4096), "nothing of it is lost")
        #expect(try record.load() == .levels([:]), "the file is gone from the record's path")
        try Data("{".utf8).write(to: URL(fileURLWithPath: record.path))
        #expect(try record.load() == .damaged(.notJSON, setAside: .success(record.path + ".damaged.1")))
    }

    @Test("A FIFO at the record's path is set aside unread, without waiting for a writer")
    func fifo() throws {
        let directory = temporaryPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let record = OriginalsRecord(path: directory + "/originals@x.json")
        #expect(mkfifo(record.path, 0o600) == 0)
        #expect(try record.load() == .damaged(.notAFile, setAside: .success(record.path + ".damaged")))
    }

    @Test("A sink no audio server could have is left out: no channels, more than 32, a value past the maximum")
    func impossibleLevels() throws {
        let record =
            #"{"a":{"volume":[],"muted":false},"b":{"volume":[\#((0..<300).map(String.init).joined(separator: ","))],"muted":false},"#
            + #""c":{"volume":[4294967295],"muted":true},"d":{"volume":[65536,32768],"muted":true}}"#
        #expect(
            try OriginalsRecord.levels(in: Array(record.utf8)) == ["d": SinkLevel(volume: SinkVolume(channels: [65536, 32768]), muted: true)])
    }

    @Test("A record larger than any the daemon writes is set aside unread")
    func huge() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path + ".damaged") }
        try Data(repeating: 0x20, count: OriginalsRecord.sizeLimit + 1).write(to: URL(fileURLWithPath: path))
        #expect(
            try OriginalsRecord(path: path).load() == .damaged(.tooLarge(OriginalsRecord.sizeLimit + 1), setAside: .success(path + ".damaged")))
    }
}
