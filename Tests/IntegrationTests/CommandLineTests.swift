import Foundation
import GuardProtocol
import GuardSettings
import TestSupport
import Testing

@Suite("The command line", .serialized)
struct CommandLineTests {
    @Test("Exit codes: 2 for usage, 3 with a hint when no daemon runs")
    func exitCodes() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-daemon-\(UUID().uuidString).sock").path
        for arguments in [["status"], ["watch"], ["pause"], ["resume"]] {
            let result = try outcome(of: [Daemon.binary] + arguments + ["--socket", missing])
            #expect(result.status == 3, "\(arguments)")
            #expect(result.errors == "volume-guard: no daemon is running at \(missing)\nstart one with: volume-guard run\n")
        }
        for arguments in [["watch", "--bogus"], ["watch", "--since", "soon"], ["run", "--history", "0"], ["status", "extra"], ["dance"]] {
            let result = try outcome(of: [Daemon.binary] + arguments + ["--socket", missing])
            #expect(result.status == 2, "\(arguments): \(result.errors)")
            #expect(result.errors.contains("Usage:"), "\(arguments)")
        }
        #expect(try outcome(of: [Daemon.binary, "--help"]).status == 0)
    }

    @Test("Every setting of the config file is a flag of run, checked by the same limits")
    func everySettingIsAFlag() throws {
        let help = try outcome(of: [Daemon.binary, "run", "--help"]).output
        for setting in Options.settings {
            // A flag with a second name (--devices, --device) is followed by a comma in the help.
            let flags = if case .bool = setting.kind { ["--\(setting.key)/--no-\(setting.key)"] } else { ["--\(setting.key) ", "--\(setting.key),"] }
            #expect(flags.contains(where: help.contains), "\(flags[0]) is missing from run --help")
        }
        let wrong = try outcome(of: [Daemon.binary, "run", "--clamp-margin", "30", "--socket", "/nonexistent/vg.sock"])
        #expect(wrong.status == 2)
        #expect(wrong.errors.contains("--clamp-margin must be more than 0 and at most 25 (percent)"), "\(wrong.errors)")
    }

    @Test("status is a readable summary; pause and resume act and exit 0")
    func statusPauseResume() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let daemon = try await Daemon(on: server)
        let cli = { (arguments: [String]) in try outcome(of: [Daemon.binary] + arguments + ["--socket", daemon.socketPath]) }

        let status = try cli(["status"])
        #expect(status.status == 0)
        let lines = status.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("state       guarding"))
        #expect(lines.contains("sink        guard_a"))
        #expect(lines.contains("held        50.00 % (raw 32768/32768)"))
        #expect(lines.contains("original    50.00 % (raw 32768/32768)"))
        #expect(lines.contains("presses     up 0, down 0, mute 0 (last seq 0)"))
        #expect(lines.contains("subscribers 0"))
        #expect(lines.contains { $0.hasPrefix("uptime      0h 0m ") }, "\(lines)")

        #expect(try cli(["pause"]).status == 0)
        #expect(try cli(["status"]).output.contains("state       paused"))
        #expect(try cli(["resume"]).status == 0)
        #expect(try cli(["status"]).output.contains("state       guarding"))
        let json = try cli(["status", "--json"])
        guard case .status(let reply)? = ServerMessage(line: Array(json.output.utf8.dropLast())) else {
            Issue.record("not a status line: \(json.output)")
            return
        }
        #expect(reply.sink == "guard_a")
    }

    @Test("watch --since prints the presses the daemon still has, then live ones, and says when some are gone")
    func watchSince() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let daemon = try await Daemon(on: server, arguments: ["--step", "5", "--history", "2"])
        let keys = try await KeyPresser(on: server, sink: "guard_a")
        let witness = try await Subscriber(to: daemon)
        for _ in 0..<3 { try await keys.pressUp(by: 3277) }
        _ = try await witness.waitForPresses(3)

        let human = try BackgroundCommand([Daemon.binary, "watch", "--since", "0", "--socket", daemon.socketPath])
        let raw = try BackgroundCommand([Daemon.binary, "watch", "--since", "2", "--json", "--socket", daemon.socketPath])
        #expect(await eventually { human.output.contains("#3") && raw.output.contains(#""seq":3"#) })
        try await keys.pressUp(by: 3277)
        #expect(await eventually { human.output.contains("#4") && raw.output.contains(#""seq":4"#) })
        #expect(await daemon.stop() == 0)
        #expect(human.wait() == 0)
        #expect(raw.wait() == 0)

        let lines = human.output.split(separator: "\n")
        #expect(lines.first == "-- some presses after #0 are no longer in the daemon's history; replaying from the oldest it has")
        // A gesture of the first presses may be told live among them: only the press lines count here.
        let presses = lines.filter { $0.contains("  up  guard_a  #") }
        #expect(presses.map { $0.split(separator: " ").last } == ["#2", "#3", "#4"])
        #expect(lines.dropFirst().first?.contains("Z  up  guard_a  #2") == true, "\(lines)")
        let messages = raw.output.split(separator: "\n").compactMap { ServerMessage(line: Array($0.utf8)) }
        guard case .subscribed(let reply)? = messages.first else {
            Issue.record("no subscribed line: \(raw.output)")
            return
        }
        #expect(reply.gap == nil)
        #expect(messages.compactMap { if case .press(let press) = $0 { press.seq } else { nil } } == [UInt64(3), 4])
    }
}
