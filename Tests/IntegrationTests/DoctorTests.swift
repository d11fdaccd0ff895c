import Foundation
import TestSupport
import Testing

/// `volume-guard doctor` against real audio servers and daemons: each link it finds broken is named with
/// its fix and exit 1; a working setup exits 0; it never hangs.
@Suite("doctor", .serialized)
struct DoctorTests {
    /// Runs doctor as a user of `server` would, with a config directory of its own (`config`, written there
    /// when given).
    static func doctor(
        _ arguments: [String] = [], on server: AudioServer, config: String? = nil
    ) throws -> (status: Int32, output: String, errors: String) {
        let directory = server.runtimeDirectory + "/doctor-config"
        try FileManager.default.createDirectory(atPath: directory + "/volume-guard", withIntermediateDirectories: true)
        if let config { try config.write(toFile: directory + "/volume-guard/config.toml", atomically: true, encoding: .utf8) }
        return try outcome(
            of: [Daemon.binary, "doctor"] + arguments, environment: server.environment.merging(["XDG_CONFIG_HOME": directory]) { $1 })
    }

    @Test("A working sink setup exits 0, each link ok, the HTTP listener connected to", arguments: AudioServer.Kind.underTest)
    func working(_ kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let daemon = try await Daemon(on: server, arguments: ["--http", "127.0.0.1:0"])
        let result = try Self.doctor(["--socket", daemon.socketPath], on: server)
        #expect(result.status == 0, "\(result.output)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("ok    daemon: running, guarding, source sink"), "\(lines)")
        #expect(lines.contains("ok    default sink: guard_a"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("ok    audio server: \(kind == .pulseaudio ? "pulseaudio" : "PulseAudio (on PipeWire")") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("ok    http: listening at 127.0.0.1:") }, "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("FAIL") })
    }

    @Test("A stopped daemon is named with the command that starts it, and exit 1")
    func stoppedDaemon() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        #expect(await daemon.stop() == 0)
        let result = try Self.doctor(["--socket", daemon.socketPath], on: server)
        #expect(result.status == 1)
        let failed = result.output.split(separator: "\n").filter { $0.hasPrefix("FAIL") }
        #expect(failed.count == 1, "\(result.output)")
        #expect(failed.first?.hasPrefix("FAIL  daemon: not running (nothing answers at \(daemon.socketPath)) — ") == true, "\(failed)")
        #expect(failed.first?.contains("systemctl --user start volume-guard") == true)
        #expect(result.output.contains("ok    audio server: pulseaudio"))
    }

    @Test("A daemon that accepts and never replies: said so within the bound, not waited for, named by its pid")
    func silentDaemon() throws {
        let server = try AudioServer(.pulseaudio)
        let path = server.runtimeDirectory + "/silent.sock"
        let listener = try SilentListener(path: path)
        let began = ContinuousClock.now
        let result = try Self.doctor(["--socket", path], on: server)
        #expect(ContinuousClock.now - began < .seconds(10))
        #expect(result.status == 1)
        // The listener is this test's process: /proc names it as the daemon that does not answer.
        let pid = getpid()
        #expect(result.output.contains("FAIL  daemon: does not answer at \(path) (stopped or stuck): "), "\(result.output)")
        #expect(result.output.contains("(pid \(pid)) — stop it: `kill \(pid)`"), "\(result.output)")
        withExtendedLifetime(listener) {}
    }

    @Test("A socket whose file was replaced, its listener still there: the daemon does not answer, named by its pid")
    func replacedSocketFile() throws {
        let server = try AudioServer(.pulseaudio)
        let path = server.runtimeDirectory + "/replaced.sock"
        let listener = try SilentListener(path: path)
        // A second listener bound to the same path and closed: the file left refuses connections.
        unlink(path)
        withExtendedLifetime(try SilentListener(path: path)) {}
        let result = try Self.doctor(["--socket", path], on: server)
        #expect(result.status == 1)
        #expect(result.output.contains("FAIL  daemon: does not answer: \(path) refuses connections, yet a socket bound there listens"), "\(result.output)")
        #expect(result.output.contains("(pid \(getpid()))"), "\(result.output)")
        withExtendedLifetime(listener) {}
    }

    @Test("An action whose program is missing is named, and exit 1; --json says the same for scripts")
    func missingProgram() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        let config = """
            [[action]]
            name = "photo"
            run = ["volume-guard-no-such-program", "--capture"]

            [[action]]
            name = "log"
            run = ["true"]
            """
        let result = try Self.doctor(["--socket", daemon.socketPath], on: server, config: config)
        #expect(result.status == 1)
        let failed = result.output.split(separator: "\n").filter { $0.hasPrefix("FAIL") }
        #expect(
            failed == [#"FAIL  action "photo": volume-guard-no-such-program is not found in PATH — install it, or give `run` its full path"#],
            "\(result.output)")
        #expect(result.output.contains(#"ok    action "log": true is /"#), "\(result.output)")

        let json = try Self.doctor(["--socket", daemon.socketPath, "--json"], on: server, config: config)
        #expect(json.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect(report?["ok"] as? Bool == false)
        let findings = report?["findings"] as? [[String: Any]] ?? []
        #expect(findings.first?["link"] as? String == "config")
        let photo = findings.first { $0["subject"] as? String == "photo" }
        #expect(photo?["status"] as? String == "wrong")
        #expect(photo?["fix"] as? String == "install it, or give `run` its full path")
    }

    @Test("A mistake in the config file is a finding, not the end of the checks")
    func configMistake() throws {
        let server = try AudioServer(.pulseaudio)
        let result = try Self.doctor(["--json"], on: server, config: "step = \"loud\"\n")
        #expect(result.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let links = (report?["findings"] as? [[String: Any]] ?? []).map { "\($0["link"] ?? "") \($0["status"] ?? "")" }
        #expect(links.prefix(3) == ["config wrong", "daemon wrong", "audio-server ok"], "\(result.output)")
    }

    @Test("With a mistake in the config file, the daemon is looked for at the file's socket, as run found it")
    func socketOfFileWithMistake() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(socketPath: server.runtimeDirectory + "/booth.sock", environment: server.environment)
        let result = try Self.doctor(on: server, config: "step = \"loud\"\nsocket = \"\(daemon.socketPath)\"\n")
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("FAIL  config: ") == true, "\(result.output)")
        #expect(lines.contains("ok    daemon: running, guarding, source sink"), "\(result.output)")
    }
}

/// A Unix socket that listens and never accepts: a connection to it is queued, and no reply ever comes.
private final class SilentListener {
    let descriptor: Int32

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(descriptor, 8) == 0 else { throw TestFailure("cannot listen at \(path)") }
    }

    deinit { close(descriptor) }
}
