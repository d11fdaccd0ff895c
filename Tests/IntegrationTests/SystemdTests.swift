import Foundation
import GuardProtocol
import TestSupport
import Testing

@Suite("As a systemd service", .serialized)
struct SystemdTests {
    @Test("Type=notify: READY once serving, STATUS on changes, RELOADING and READY around a reload, STOPPING at the end")
    func notify() async throws {
        let server = try AudioServer(.pulseaudio)
        let notify = try NotifySocket(in: server.runtimeDirectory)
        let daemon = try await Daemon(on: server, environment: ["NOTIFY_SOCKET": notify.path])
        #expect(await eventually { notify.messages.contains("STATUS=guarding guard_a") })
        #expect(notify.messages.first == "READY=1", "\(notify.messages)")

        _ = try await daemon.client.request(Request(.pause))
        #expect(await eventually { notify.messages.contains("STATUS=paused") })
        daemon.send(SIGHUP)
        #expect(await eventually { notify.messages.last == "READY=1" && notify.messages.contains { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") } })
        #expect(await daemon.stop() == 0)
        #expect(notify.messages.contains("STOPPING=1"))
    }

    @Test("Under journald, every log line carries its syslog priority")
    func journal() async throws {
        let server = try AudioServer(.pulseaudio)
        // journald names the stream it reads by device and inode: here, the daemon's log file.
        let launcher = ["/bin/sh", "-c", #"export JOURNAL_STREAM=$(stat -L -c %d:%i /proc/$$/fd/2); exec "$@""#, "sh"]
        let daemon = try await Daemon(on: server, launcher: launcher)
        #expect(await daemon.stop() == 0)
        let lines = daemon.log.split(separator: "\n")
        #expect(lines.contains("<6>info state state=guarding"), "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("<") }, "\(lines)")
    }

    @Test("scripts/install places the executable, units and example config, and the units pass systemd-analyze verify")
    func install() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("install-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let home = prefix + "/home"
        let environment = ["HOME": home, "XDG_CONFIG_HOME": home + "/.config", "VOLUME_GUARD_BINARY": Daemon.binary]
        let script = repositoryRoot.appendingPathComponent("scripts/install").path
        let result = try outcome(of: [script, "--prefix", prefix + "/usr"], environment: environment)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("systemctl --user enable --now volume-guard"), "\(result.output)")
        let unit = home + "/.config/systemd/user/volume-guard.service"
        let socketUnit = home + "/.config/systemd/user/volume-guard.socket"
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/usr/bin/volume-guard"))
        #expect(FileManager.default.fileExists(atPath: home + "/.config/volume-guard/config.toml"))
        #expect(FileManager.default.fileExists(atPath: socketUnit))
        let text = try String(contentsOfFile: unit, encoding: .utf8)
        #expect(text.contains("ExecStart=\(prefix)/usr/bin/volume-guard run\n"), "\(text)")

        let runtime = prefix + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let verify = try outcome(of: ["systemd-analyze", "--user", "verify", unit, socketUnit], environment: ["XDG_RUNTIME_DIR": runtime, "HOME": home])
        #expect(verify.status == 0, "\(verify.output)\(verify.errors)")
        #expect(verify.errors.isEmpty, "\(verify.errors)")

        // An existing config is the user's: a second install leaves it alone.
        try "step = 5\n".write(toFile: home + "/.config/volume-guard/config.toml", atomically: true, encoding: .utf8)
        #expect(try outcome(of: [script, "--prefix", prefix + "/usr"], environment: environment).status == 0)
        #expect(try String(contentsOfFile: home + "/.config/volume-guard/config.toml", encoding: .utf8) == "step = 5\n")
    }
}
