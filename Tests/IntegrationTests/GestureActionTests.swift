import Foundation
import GuardProtocol
import TestSupport
import Testing

@Suite("Actions on gestures on a real server", .serialized)
struct GestureActionTests {
    /// A config with actions on the tap, the hold and the double of volume up, each writing its gesture and
    /// its press's seq to `output`.
    static func config(writingTo output: String) -> String {
        ["tap", "hold", "double"].map { gesture in
            """
            [[action]]
            name = "\(gesture)"
            on = "up"
            gesture = "\(gesture)"
            shell = true
            run = 'echo "$VOLUME_GUARD_GESTURE $VOLUME_GUARD_SEQ" >> "\(output)"'
            """
        }.joined(separator: "\n\n")
    }

    @Test("One volume key of the sink, three jobs: a tap, a hold and a double each run their one action, once", arguments: AudioServer.Kind.underTest)
    func oneKeyThreeJobs(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let output = server.runtimeDirectory + "/gestures"
        let config = server.runtimeDirectory + "/config.toml"
        try Self.config(writingTo: output).write(toFile: config, atomically: true, encoding: .utf8)
        // A repeat period well above the repeats' pace: a busy test machine may stretch the 33 ms sleeps.
        let daemon = try await Daemon(on: server, arguments: ["--config", config, "--step", "5", "--repeat-period", "300"])
        let subscriber = try await Subscriber(to: daemon)
        let key = try await KeyPresser(on: server, sink: "guard_a")
        func ran() -> [String] {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map { $0.split(separator: " ")[0].description }
        }

        // A tap: one press, and nothing after it.
        try await key.tap(.up, by: 3277)
        #expect(await eventually { ran() == ["tap"] }, "\(ran())")

        // A hold: the kernel's repeat, 250 ms, then every 33 ms.
        try await key.tap(.up, by: 3277)
        try await Task.sleep(for: .milliseconds(250))
        for _ in 0..<15 {
            try await key.tap(.up, by: 3277)
            try await Task.sleep(for: .milliseconds(33))
        }
        #expect(await eventually { await subscriber.gestures.contains { $0.gesture == .holdEnd } })

        // A double: two presses 200 ms apart.
        try await key.tap(.up, by: 3277)
        try await Task.sleep(for: .milliseconds(200))
        try await key.tap(.up, by: 3277)
        #expect(await eventually { ran().count == 3 }, "\(ran())")

        // Past every window: nothing else ran, and each once.
        try await Task.sleep(for: .seconds(1))
        #expect(ran() == ["tap", "hold", "double"], "\(daemon.log)")
        let gestures = await subscriber.gestures.map(\.gesture)
        #expect(gestures == [.tap, .holdStart, .holdEnd, .double])
        let status = try await daemon.status()
        let actions = try #require(status.actions)
        #expect(actions.map(\.runs) == [1, 1, 1])
        #expect(actions.map(\.gesture) == [.tap, .hold, .double])
        #expect(actions.map(\.tapDelay) == [TapDelayMessage(sink: 800), nil, nil], "the sink's tap waits max(repeat-delay, double-window)")
        let (exit, text) = try command([Daemon.binary, "status", "--socket", daemon.socketPath], environment: server.environment)
        #expect(exit == 0)
        #expect(text.contains("action      tap on tap (waits 800 ms on the sink): 1 run, 0 dropped"), "\(text)")
        #expect(text.contains("action      hold on hold: 1 run, 0 dropped"), "\(text)")
        try await expectVolume(server, "guard_a", [32768, 32768])
    }

    @Test("A key with a tap and a hold and no double: two quick presses are two taps, and the cooldown runs one", arguments: AudioServer.Kind.underTest)
    func doublePressWithNoDouble(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let output = server.runtimeDirectory + "/gestures"
        let config = server.runtimeDirectory + "/config.toml"
        let actions = ["tap", "hold"].map { gesture in
            """
            [[action]]
            name = "\(gesture)"
            on = "up"
            gesture = "\(gesture)"
            cooldown = 2
            shell = true
            run = 'echo "$VOLUME_GUARD_GESTURE $VOLUME_GUARD_SEQ" >> "\(output)"'
            """
        }
        try actions.joined(separator: "\n\n").write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await Daemon(on: server, arguments: ["--config", config, "--step", "5", "--repeat-period", "100"])
        let subscriber = try await Subscriber(to: daemon)
        let key = try await KeyPresser(on: server, sink: "guard_a")

        try await key.tap(.up, by: 3277)
        try await Task.sleep(for: .milliseconds(150))
        try await key.tap(.up, by: 3277)
        #expect(await eventually { await subscriber.gestures.count >= 2 })
        try await Task.sleep(for: .seconds(1))
        #expect(await subscriber.gestures.map(\.gesture) == [.tap, .tap], "no double looked for")
        let ran = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(ran.count == 1 && ran.first?.hasPrefix("tap") == true, "\(ran)")
        let status = try #require(try await daemon.status().actions)
        #expect(status.map(\.runs) == [1, 0])
        #expect(status.map(\.dropped) == [1, 0], "the second tap, in the cooldown")
        #expect(status.first?.tapDelay == TapDelayMessage(sink: 800), "a hold looked for: a first repeat may still come")
    }
}
