import Foundation
import GuardProtocol
import TestSupport
import Testing

/// `volume-guard learn` against real servers: the default sink watched while it listens, each change put
/// back, and a running daemon paused meanwhile. Its input devices are the input VM's (Tests/InputVM).
@Suite("learn: the sink, on real servers", .serialized)
struct LearnTests {
    /// A config file path of a test's own, in a directory not made yet: learn makes it.
    private func configPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("learn-\(UUID().uuidString)/volume-guard/config.toml").path
    }

    @Test("A change of the sink with no device read is a key learn cannot read: put back, and source = sink written", arguments: AudioServer.Kind.underTest)
    func sinkAlone(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let config = configPath()
        let learn = try BackgroundCommand(
            [Daemon.binary, "learn", "--write", "--config", config, "--socket", server.runtimeDirectory + "/none.sock", "--next", "1"],
            environment: server.environment)
        #expect(await eventually { learn.output.contains("Watching the default sink \"guard_a\"") }, "\(learn.output)")
        _ = try server.pactl("set-sink-volume", "guard_a", "+5%")
        #expect(learn.wait() == 0, "\(learn.output)")
        #expect(learn.output.contains("The default sink's volume changed (up)"), "\(learn.output)")
        #expect(try server.volume(of: "guard_a") == [32768, 32768], "put back")
        #expect(try String(contentsOfFile: config, encoding: .utf8) == "source = \"sink\"\n")
    }

    @Test("A daemon guarding the sink is paused while learn listens, and guards again after, the level as it was", arguments: AudioServer.Kind.underTest)
    func pausesTheDaemon(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let daemon = try await Daemon(on: server)
        let learn = try BackgroundCommand(
            [Daemon.binary, "learn", "--config", configPath(), "--socket", daemon.socketPath, "--next", "1"], environment: server.environment)
        #expect(await eventually { learn.output.contains("Watching the default sink") }, "\(learn.output)")
        #expect(learn.output.contains("paused while listening"))
        #expect(try await daemon.status().state == .paused)
        _ = try server.pactl("set-sink-mute", "guard_a", "1")
        #expect(learn.wait() == 0, "\(learn.output)")
        #expect(learn.output.contains("The default sink's volume changed (mute)"), "\(learn.output)")
        #expect(try await eventually { try await daemon.status().state == .guarding })
        #expect(try server.volume(of: "guard_a") == [32768, 32768])
        #expect(try server.isMuted("guard_a") == false)
        #expect(try await daemon.status().presses.mute == 0, "learn's own change is no press of the daemon's")
    }

    @Test("A learn killed while it listens leaves the daemon guarding: its pause ends with its connection", arguments: AudioServer.Kind.underTest)
    func killedWhileListening(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let daemon = try await Daemon(on: server)
        let learn = try BackgroundCommand(
            [Daemon.binary, "learn", "--config", configPath(), "--socket", daemon.socketPath], environment: server.environment)
        #expect(await eventually { learn.output.contains("paused while listening") }, "\(learn.output)")
        #expect(try await daemon.status().state == .paused)
        learn.send(SIGKILL)
        #expect(learn.wait() == SIGKILL)
        #expect(try await eventually { try await daemon.status().state == .guarding })
    }

    @Test("A learn whose terminal hangs up resumes the daemon and writes nothing", arguments: AudioServer.Kind.underTest)
    func hungUp(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let daemon = try await Daemon(on: server)
        let config = configPath()
        let learn = try BackgroundCommand(
            [Daemon.binary, "learn", "--write", "--config", config, "--socket", daemon.socketPath], environment: server.environment)
        #expect(await eventually { learn.output.contains("Press the button") }, "\(learn.output)")
        learn.send(SIGHUP)
        #expect(learn.wait() == 130, "\(learn.output)")
        #expect(try await daemon.status().state == .guarding, "resumed before learn ended")
        #expect(!FileManager.default.fileExists(atPath: config))
    }
}
