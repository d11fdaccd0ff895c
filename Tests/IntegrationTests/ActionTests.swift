import Foundation
import GuardProtocol
import TestSupport
import Testing

@Suite("Actions on presses", .serialized)
struct ActionTests {
    @Test("An action runs on its presses with the press in its environment, without a shell")
    func environment() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let output = server.runtimeDirectory + "/action-env"
        let config = server.runtimeDirectory + "/config.toml"
        try """
        [[action]]
        name = "record"
        on = "up"
        run = ["/bin/sh", "-c", "env | grep ^VOLUME_GUARD_ | sort > \\"$1\\"", "sh", "\(output)"]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await Daemon(on: server, arguments: ["--config", config, "--step", "5"])
        let subscriber = try await Subscriber(to: daemon)
        try server.pactl("set-sink-volume", "guard_a", "-5%")
        _ = try await subscriber.waitForPresses(1)
        try await Task.sleep(for: .milliseconds(300))
        #expect(!FileManager.default.fileExists(atPath: output), "a down press does not run an up action")

        try server.pactl("set-sink-volume", "guard_a", "+10%")
        _ = try await subscriber.waitForPresses(2)
        #expect(await eventually { FileManager.default.fileExists(atPath: output) })
        #expect(
            await eventually {
                (try? String(contentsOfFile: output, encoding: .utf8)) == """
                    VOLUME_GUARD_COUNT=2
                    VOLUME_GUARD_DIRECTION=up
                    VOLUME_GUARD_SEQ=2
                    VOLUME_GUARD_SINK=guard_a
                    VOLUME_GUARD_SOURCE=sink

                    """
            }, "\((try? String(contentsOfFile: output, encoding: .utf8)) ?? "nothing")")
        #expect(await eventually { daemon.log.contains("action done action=record seconds=") })
        let report = try #require(try await daemon.status().actions?.first)
        #expect((report.name, report.runs, report.dropped, report.last?.seq, report.last?.result, report.last?.status) == ("record", 1, 0, 2, .exited, 0))
    }

    @Test("A hanging action does not hold up the guard, and is stopped at its timeout")
    func hanging() async throws {
        let server = try AudioServer(.pulseaudio)
        let config = server.runtimeDirectory + "/config.toml"
        try """
        [[action]]
        name = "hang"
        run = ["sleep", "600"]
        timeout = 1
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await Daemon(on: server, arguments: ["--config", config])
        let subscriber = try await Subscriber(to: daemon)
        let held = try server.volume(of: "guard_a")
        for (count, change) in ["+5%", "-5%", "+5%"].enumerated() {
            try server.pactl("set-sink-volume", "guard_a", change)
            _ = try await subscriber.waitForPresses(count + 1)
            try await expectVolume(server, "guard_a", held)
        }
        #expect(daemon.log.contains("action still running; press dropped for it action=hang"))
        #expect(await eventually { daemon.log.contains("action timed out; its processes were stopped action=hang") })
    }
}
