import Foundation
import GuardProtocol
import TestSupport
import Testing

@Suite("The config file, at start and on SIGHUP", .serialized)
struct ConfigTests {
    @Test("A mistake in the config file exits 2, naming the file, the line and the key")
    func mistake() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/volume-guard", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/volume-guard/config.toml"
        try "# volume-guard\nmode = \"always\"\nclamp-margin = 40\n".write(toFile: file, atomically: true, encoding: .utf8)
        let socket = directory + "/vg.sock"
        let result = try outcome(of: [Daemon.binary, "run", "--socket", socket], environment: ["XDG_CONFIG_HOME": directory])
        #expect(result.status == 2)
        #expect(result.errors == "volume-guard: \(file):3: key \"clamp-margin\": must be more than 0 and at most 25 (percent)\n")
        #expect(!FileManager.default.fileExists(atPath: socket), "nothing was started")

        try "stepp = 5\n".write(toFile: file, atomically: true, encoding: .utf8)
        let unknown = try outcome(of: [Daemon.binary, "status", "--config", file])
        #expect(unknown.status == 2)
        #expect(unknown.errors.hasPrefix("volume-guard: \(file):1: key \"stepp\": unknown key"), "\(unknown.errors)")
        let missing = try outcome(of: [Daemon.binary, "run", "--config", directory + "/none.toml"])
        #expect(missing.status == 2)
        #expect(missing.errors.hasPrefix("volume-guard: \(directory)/none.toml: cannot be read"), "\(missing.errors)")

        // Keys that fit apart but not together with the flags: a mistake of the file too.
        try "mqtt-ca-file = \"/etc/ssl/certs/ca-certificates.crt\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        let across = try outcome(of: [Daemon.binary, "run", "--socket", socket, "--mqtt", "mqtt://127.0.0.1:1"], environment: ["XDG_CONFIG_HOME": directory])
        #expect(across.status == 2)
        #expect(across.errors == "volume-guard: \(file): key \"mqtt-ca-file\": is for TLS: write the broker as mqtts:// (with the flags given)\n")
        #expect(!FileManager.default.fileExists(atPath: socket), "nothing was started")
    }

    @Test("config checks the file as run does, and prints its settings as JSON for a reload")
    func check() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/config.toml"
        try "step = 5\nmode = \"while-subscribed\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try outcome(of: [Daemon.binary, "config", "--config", file]).output == "\(file): ok\n")
        let json = try outcome(of: [Daemon.binary, "config", "--config", file, "--json"])
        #expect(json.status == 0)
        #expect(json.output == #"{"mode":"while-subscribed","step":5}"# + "\n")

        try "step = 500\n".write(toFile: file, atomically: true, encoding: .utf8)
        let mistake = try outcome(of: [Daemon.binary, "config", "--config", file, "--json"])
        #expect(mistake.status == 2)
        #expect(mistake.output.isEmpty)
        #expect(mistake.errors == "volume-guard: \(file):1: key \"step\": must be between 0.1 and 100 (percent)\n")
        let none = try outcome(of: [Daemon.binary, "config"], environment: ["XDG_CONFIG_HOME": directory + "/none"])
        #expect(none.status == 0)
        #expect(none.output.hasSuffix(": none; the defaults apply\n"))
    }

    @Test("run is the daemon, in the process that was started")
    func runIsTheDaemon() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        let name = try String(contentsOfFile: "/proc/\(daemon.pid)/comm", encoding: .utf8)
        #expect(name == "volume-guard\n")
        #expect(try await daemon.status().state == .guarding)
        #expect(await daemon.stop() == 0)
    }

    @Test("Flags win over the file")
    func flagsWin() async throws {
        let server = try AudioServer(.pulseaudio)
        let config = server.runtimeDirectory + "/config.toml"
        try "sink = \"guard_b\"\nmode = \"while-subscribed\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await Daemon(on: server, arguments: ["--config", config, "--mode", "always", "--sink", "@DEFAULT_SINK@"])
        #expect(try await daemon.status().sink == "guard_a")
    }

    @Test("SIGHUP applies a good file, and refuses a bad one keeping what it has")
    func reload() async throws {
        let server = try AudioServer(.pulseaudio)
        let config = server.runtimeDirectory + "/config.toml"
        try "sink = \"guard_a\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await Daemon(on: server, arguments: ["--config", config])
        #expect(try await daemon.status().sink == "guard_a")

        try "sink = \"guard_b\"\nhistory = \"lots\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        #expect(await eventually { daemon.log.contains("the new configuration is refused; keeping the one in use") })
        #expect(daemon.log.contains(#"config.toml:2: key \"history\": must be a whole number"#), "log:\n\(daemon.log)")
        #expect(try await daemon.status().sink == "guard_a")
        #expect(try await daemon.status().state == .guarding)

        try server.setVolume(of: "guard_b", raw: [32768, 32768])
        try "sink = \"guard_b\"\nguard-mute = false\nserver = \"unix:/nowhere\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        #expect(try await eventually { try await daemon.status().sink == "guard_b" })
        #expect(daemon.log.contains("server needs a restart to change"))
        try await expectVolume(server, "guard_a", [65536, 65536])
        let subscriber = try await Subscriber(to: daemon)
        try server.pactl("set-sink-mute", "guard_b", "1")
        try server.pactl("set-sink-volume", "guard_b", "+5%")
        #expect(try await subscriber.waitForPresses(1).map(\.direction) == [.up])
        try await expectVolume(server, "guard_b", [32768, 32768])
        #expect(try server.isMuted("guard_b"), "with guard-mute = false, mute passes through")
        #expect(await daemon.stop() == 0)
        #expect(try server.isMuted("guard_b"))
    }

    @Test("A config file whose path starts with `-` is read, and named in its mistakes, not taken for an option")
    func pathLikeAnOption() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "step = 5\n".write(toFile: directory + "/-x", atomically: true, encoding: .utf8)
        let good = try outcome(of: ["-C", directory, Daemon.binary, "config", "--config=-x", "--json"])
        #expect(good.status == 0, "\(good.errors)")
        #expect(good.output == #"{"step":5}"# + "\n")
        try "step = 500\n".write(toFile: directory + "/-x", atomically: true, encoding: .utf8)
        let mistake = try outcome(of: ["-C", directory, Daemon.binary, "config", "--config=-x"])
        #expect(mistake.status == 2)
        #expect(mistake.errors == "volume-guard: -x:1: key \"step\": must be between 0.1 and 100 (percent)\n")
    }

    @Test("The loader's warnings on standard error (an LD_PRELOAD it cannot load) do not spoil the parser's answer")
    func loaderNoise() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/config.toml"
        try "step = 5\n".write(toFile: file, atomically: true, encoding: .utf8)
        let preload = ["LD_PRELOAD": directory + "/libnone.so"]
        let good = try outcome(of: [Daemon.binary, "config", "--config", file, "--json"], environment: preload)
        #expect(good.errors.contains("LD_PRELOAD cannot be preloaded"), "the loader did warn: \(good.errors)")
        #expect(good.status == 0, "\(good.errors)")
        #expect(good.output == #"{"step":5}"# + "\n")
        try "step = 500\n".write(toFile: file, atomically: true, encoding: .utf8)
        let mistake = try outcome(of: [Daemon.binary, "config", "--config", file], environment: preload)
        #expect(mistake.status == 2)
        #expect(mistake.errors.hasSuffix("volume-guard: \(file):1: key \"step\": must be between 0.1 and 100 (percent)\n"), "\(mistake.errors)")
    }

    /// The message for a NUL byte in a config file (`ConfigFile.text`).
    static let nul =
        "a NUL byte, which no config file holds (a power cut during a write can leave zeros); the file is refused, "
        + "so that nothing after it is silently lost: write the file again"

    @Test("A NUL byte in the file: config and run exit 2 naming its line and column, instead of reading up to it")
    func nulByte() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/config.toml"
        try Data("step = 5\n\0\0\0\n[[action]]\nrun = [\"true\"]\n".utf8).write(to: URL(fileURLWithPath: file))
        for arguments in [["config"], ["run", "--source", "input", "--devices", "none", "--socket", directory + "/vg.sock"]] {
            let result = try outcome(of: [Daemon.binary] + arguments + ["--config", file])
            #expect(result.status == 2, "\(arguments)")
            #expect(result.errors == "volume-guard: \(file):2:1: \(Self.nul)\n", "\(arguments)")
        }
        try Data(repeating: 0, count: 4096).write(to: URL(fileURLWithPath: file))
        let zeros = try outcome(of: [Daemon.binary, "config", "--config", file])
        #expect(zeros.status == 2, "a power cut's zeros are not an empty file of defaults")
        #expect(zeros.errors == "volume-guard: \(file):1:1: \(Self.nul)\n")
    }

    @Test("A reload of a file with NUL bytes or bytes that are not UTF-8 keeps the configuration and its actions")
    func nulOnReload() async throws {
        let server = try AudioServer(.pulseaudio)
        let config = server.runtimeDirectory + "/config.toml"
        let action = "[[action]]\nname = \"photo\"\nrun = [\"true\"]\n"
        try "sink = \"guard_a\"\n\(action)".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await Daemon(on: server, arguments: ["--config", config])
        #expect(try await daemon.status().actions?.map(\.name) == ["photo"])
        let hostile: [(bytes: [UInt8], refusal: String)] = [
            (Array("sink = \"guard_a\"\n\0\0\0\n\(action)".utf8), "config.toml:2:1: a NUL byte"),
            ([UInt8](repeating: 0, count: 4096), "config.toml:1:1: a NUL byte"),
            (Array("sink = \"guard_a\"\n# caf".utf8) + [0xE9, 0x0A] + Array(action.utf8), "config.toml:2:6: bytes that are not UTF-8"),
        ]
        for (number, file) in hostile.enumerated() {
            try Data(file.bytes).write(to: URL(fileURLWithPath: config))
            daemon.send(SIGHUP)
            #expect(await eventually { daemon.log.components(separatedBy: "keeping the one in use").count == number + 2 }, "log:\n\(daemon.log)")
            #expect(daemon.log.contains(file.refusal), "log:\n\(daemon.log)")
            #expect(try await daemon.status().actions?.map(\.name) == ["photo"], "the action in use is kept")
        }
        #expect(await daemon.stop() == 0, "log:\n\(daemon.log)")
    }

    /// A file on which toml++ asserts and aborts the process that parses it (Fuzz/open/README.md).
    static let openCrasher = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/open/config-file/toml++-asserts-in-parse-time-on-a-broken-date-time").path

    @Test("A file that crashes the TOML parser is a mistake like any other: config and run exit 2 naming it (every one in Fuzz/open)")
    func parserCrash() throws {
        let open = URL(fileURLWithPath: Self.openCrasher).deletingLastPathComponent()
        let files = try FileManager.default.contentsOfDirectory(atPath: open.path).map { open.appendingPathComponent($0).path }
        #expect(files.contains(Self.openCrasher))
        for file in files {
            for arguments in [["config"], ["run", "--source", "input", "--devices", "none"]] {
                let (status, _, errors) = try outcome(of: [Daemon.binary] + arguments + ["--config", file])
                #expect(status == 2, "\(arguments) \(file): \(errors)")
                #expect(errors.contains("crashed the TOML parser (signal 6), so it is refused; the parser said:"), "\(errors)")
            }
        }
    }

    @Test("A reload of a FIFO, a device, a file that crashes the TOML parser or one nested 20,000 deep keeps the configuration; the daemon answers and stops")
    func hostileReloads() async throws {
        let server = try AudioServer(.pulseaudio)
        let config = server.runtimeDirectory + "/config.toml"
        try "sink = \"guard_a\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let original = try server.volume(of: "guard_a")
        let daemon = try await Daemon(on: server, arguments: ["--config", config])
        #expect(try await daemon.status().sink == "guard_a")
        let deep = "[" + Array(repeating: "a", count: 20_000).joined(separator: ".") + "]\n"
        let asserting = try String(contentsOfFile: Self.openCrasher, encoding: .utf8)
        let hostile: [(make: () throws -> Void, refusal: String)] = [
            ({ #expect(mkfifo(config, 0o600) == 0) }, "config.toml: is a pipe"),
            ({ #expect(symlink("/dev/zero", config) == 0) }, "config.toml: is not a regular file"),
            ({ try deep.write(toFile: config, atomically: true, encoding: .utf8) }, "config.toml:1: nests tables or arrays more than 32 levels"),
            ({ try asserting.write(toFile: config, atomically: true, encoding: .utf8) }, "config.toml: crashed the TOML parser (signal 6)"),
        ]
        for (number, file) in hostile.enumerated() {
            unlink(config)
            try file.make()
            daemon.send(SIGHUP)
            #expect(await eventually { daemon.log.components(separatedBy: "keeping the one in use").count == number + 2 }, "log:\n\(daemon.log)")
            #expect(daemon.log.contains(file.refusal), "log:\n\(daemon.log)")
            #expect(try await daemon.status().sink == "guard_a")
        }
        #expect(await daemon.stop() == 0, "log:\n\(daemon.log)")
        #expect(try server.volume(of: "guard_a") == original)
    }
}
