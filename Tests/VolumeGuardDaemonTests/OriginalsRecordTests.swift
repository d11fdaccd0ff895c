import Foundation
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
        #expect(try record.load() == [:])
        let levels = [
            "guard_a": SinkLevel(volume: SinkVolume(channels: [65536, 65536]), muted: false),
            "guard_b": SinkLevel(volume: SinkVolume(channels: [98304, 1, 3]), muted: true),
        ]
        try record.save(levels)
        #expect(try record.load() == levels)
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

    @Test("A damaged record is an error to report, not a crash")
    func damaged() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "{\"guard_a\":".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try OriginalsRecord(path: path).load() }
    }

    @Test("A sink no audio server could have is left out: no channels, more than 32, a value past the maximum")
    func impossibleLevels() throws {
        let record =
            #"{"a":{"volume":[],"muted":false},"b":{"volume":[\#((0..<300).map(String.init).joined(separator: ","))],"muted":false},"#
            + #""c":{"volume":[4294967295],"muted":true},"d":{"volume":[65536,32768],"muted":true}}"#
        #expect(
            try OriginalsRecord.levels(in: Data(record.utf8)) == ["d": SinkLevel(volume: SinkVolume(channels: [65536, 32768]), muted: true)])
    }

    @Test("A record larger than any the daemon writes is refused unread")
    func huge() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: 0x20, count: OriginalsRecord.sizeLimit + 1).write(to: URL(fileURLWithPath: path))
        #expect(throws: (any Error).self) { try OriginalsRecord(path: path).load() }
    }
}
