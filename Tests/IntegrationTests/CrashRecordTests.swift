import Foundation
import GuardProtocol
import TestSupport
import Testing
import VolumeGuardDaemon

@Suite("Crash safety: the record of original levels", .serialized)
struct CrashRecordTests {
    @Test("SIGKILL while holding 100 %, a restart and a clean exit give exactly 100 % back", arguments: AudioServer.Kind.underTest)
    func killedAtFull(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [65536, 65536])
        let first = try await Daemon(on: server)
        try await expectVolume(server, "guard_a", [65535, 65535])
        #expect(try record(of: first) == #"{"guard_a":{"muted":false,"volume":[65536,65536]}}"#)
        #expect(await first.stop(with: SIGKILL) == nil)
        #expect(try server.volume(of: "guard_a") == [65535, 65535], "a killed daemon gives nothing back")

        let second = try await Daemon(on: server)
        #expect(try await second.status().original?.raw == [65536, 65536])
        #expect(second.log.contains("restoring guard_a to its recorded level from a previous run"), "log:\n\(second.log)")
        #expect(await second.stop() == 0)
        #expect(try server.volume(of: "guard_a") == [65536, 65536])
        #expect(try record(of: second) == nil, "a clean exit removes the record")
    }

    @Test("An amplified, muted sink gets its own level back after a crash, not the clamped one")
    func killedAmplified() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [98304, 49152])
        try server.pactl("set-sink-mute", "guard_a", "1")
        let first = try await Daemon(on: server)
        try await expectVolume(server, "guard_a", [65535, 32768])
        #expect(await first.stop(with: SIGKILL) == nil)

        let second = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: second)
        try server.pactl("set-sink-volume", "guard_a", "-5%")
        _ = try await subscriber.waitForPresses(1)
        try await expectVolume(server, "guard_a", [65535, 32768])
        #expect(await second.stop() == 0)
        #expect(try server.volume(of: "guard_a") == [98304, 49152])
        #expect(try server.isMuted("guard_a"))
    }

    @Test("Restarted in while-subscribed mode, it gives the sink its recorded level back at once")
    func killedThenPaused() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [65536, 65536])
        let first = try await Daemon(on: server)
        try await expectVolume(server, "guard_a", [65535, 65535])
        #expect(await first.stop(with: SIGKILL) == nil)

        let second = try await Daemon(on: server, arguments: ["--mode", "while-subscribed"], waitForGuarding: false)
        #expect(try await second.status().state == .paused)
        try await expectVolume(server, "guard_a", [65536, 65536])
        #expect(try await eventually { try self.record(of: second) == nil }, "nothing left to record")
        #expect(second.log.contains("restoring guard_a to its recorded level from a previous run"))
        #expect(await second.stop() == 0)
        #expect(try server.volume(of: "guard_a") == [65536, 65536])
    }

    @Test("A server that hangs at the exit: the restore is given up on in time, and the record kept for the next start", arguments: AudioServer.Kind.underTest)
    func hungServer(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        _ = try await subscriber.waitForPresses(1)
        server.freeze(true)
        defer { server.freeze(false) }
        #expect(await daemon.stop() == 0, "log:\n\(daemon.log)")
        #expect(daemon.log.contains("the audio server did not acknowledge the restore in time"), "log:\n\(daemon.log)")
        #expect(try record(of: daemon) != nil)
    }

    @Test("A zero-filled record, as a power cut leaves one, is named in the log and set aside, and the sink keeps its level")
    func zeroFilledRecord() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [65536, 65536])
        let state = server.runtimeDirectory + "/daemon-state"
        let path = OriginalsRecord.standardPath(environment: ["XDG_STATE_HOME": state], socketPath: server.runtimeDirectory + "/volume-guard.sock")
        try FileManager.default.createDirectory(atPath: state + "/volume-guard", withIntermediateDirectories: true)
        try Data(repeating: 0, count: 4096).write(to: URL(fileURLWithPath: path))

        let daemon = try await Daemon(on: server)
        #expect(
            daemon.log.contains("the record of original levels is 4096 zero bytes, as a power cut during a write can leave a file, so it is not trusted"),
            "log:\n\(daemon.log)")
        #expect(daemon.log.contains(path + ".damaged"), "the log names where it went; log:\n\(daemon.log)")
        #expect(FileManager.default.contents(atPath: path + ".damaged") == Data(repeating: 0, count: 4096), "nothing of it is lost")
        #expect(try await daemon.status().original?.raw == [65536, 65536], "the sink's own level, not one read from zeros")
        #expect(try record(of: daemon) == #"{"guard_a":{"muted":false,"volume":[65536,65536]}}"#, "a new record, written whole")
        #expect(await daemon.stop() == 0)
        #expect(try server.volume(of: "guard_a") == [65536, 65536])
    }

    /// Where strace kills the daemon as it writes its first record: the new file's fsync, the rename, the
    /// directory's fsync (the daemon makes no other such call before that write). The rename is any of
    /// its three calls: glibc's rename(3) is rename(2) on x86_64, and under qemu-user the arm64 daemon's
    /// renameat(2) reaches the host as renameat.
    static let killPoints = [("fsync", 1, false), ("rename,renameat,renameat2", 1, false), ("fsync", 2, true)]

    @Test("A daemon killed at each step of its record's write (strace) leaves the old record or the new one, whole", arguments: killPoints)
    func killedWhileWriting(call: String, when: Int, renamed: Bool) async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [65536, 65536])
        let state = server.runtimeDirectory + "/daemon-state"
        let path = OriginalsRecord.standardPath(environment: ["XDG_STATE_HOME": state], socketPath: server.runtimeDirectory + "/volume-guard.sock")
        try FileManager.default.createDirectory(atPath: state + "/volume-guard", withIntermediateDirectories: true)
        let old = #"{"guard_b":{"muted":false,"volume":[32768,32768]}}"#
        try old.write(toFile: path, atomically: false, encoding: .utf8)

        let strace = ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=\(call)", "-e", "inject=\(call):signal=KILL:when=\(when)"]
        let daemon = try await Daemon(on: server, launcher: ["/usr/bin/env"] + strace, waitUntilServing: false)
        #expect(await eventually(within: .seconds(30)) { !daemon.process.isRunning }, "strace killed it; log:\n\(daemon.log)")
        let found = try String(contentsOfFile: path, encoding: .utf8)
        if renamed {
            #expect(found.contains(#""guard_a":{"muted":false,"volume":[65536,65536]}"#), "the new record, whole: \(found)")
            #expect(try OriginalsRecord.levels(in: Array(found.utf8)).count == 2, "the new record, whole: \(found)")
        } else {
            #expect(found == old, "killed at \(call) \(when), before the rename: the old record")
            let name = URL(fileURLWithPath: path).lastPathComponent
            let left = try FileManager.default.contentsOfDirectory(atPath: state + "/volume-guard").filter { $0.hasPrefix(".\(name).") }
            #expect(left.count == 1, "killed with the new file written beside the record: \(left)")
        }
    }

    /// The daemon's record, or nil when there is none.
    private func record(of daemon: Daemon) throws -> String? {
        let directory = daemon.stateDirectory + "/volume-guard"
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        guard let file = files.first(where: { $0.hasPrefix("originals@") && $0.hasSuffix(".json") }) else { return nil }
        return try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
    }
}
