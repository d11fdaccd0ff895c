import Foundation
import GuardSettings
import Logging
import Testing
import VolumeGuardCore
import VolumeGuardDaemon

@testable import GuardConfig

@Suite("The config file")
struct ConfigFileTests {
    @Test("Every key is read, actions with their defaults")
    func everyKey() throws {
        let options = try ConfigFile.parse(
            """
            sink = "bluez_output.*"
            guard-mute = false
            step = 5
            clamp-margin = 0.5
            history = 64
            socket = "/tmp/vg.sock"
            server = "unix:/tmp/pulse/native"
            log-level = "debug"
            mode = "while-subscribed"
            http = "127.0.0.1:8370"
            http-origins = ["http://127.0.0.1:8000"]
            source = "both"
            devices = ["AB Shutter3", "2717:0040"]
            keys = ["KEY_ENTER"]
            hold-delay = 600

            [[action]]
            name = "photo"
            on = "up"
            run = ["gphoto2", "--capture-image"]
            timeout = 2.5
            cooldown = 1
            gesture = "tap"

            [[action]]
            shell = true
            run = 'echo "$VOLUME_GUARD_SEQ" >> /tmp/presses'
            """, path: "config.toml")
        #expect(
            options
                == Options(
                    sink: "bluez_output.*", guardMute: false, step: 5, clampMargin: 0.5, history: 64, socket: "/tmp/vg.sock",
                    server: "unix:/tmp/pulse/native", logLevel: .debug, mode: .whileSubscribed,
                    http: "127.0.0.1:8370", httpOrigins: ["http://127.0.0.1:8000"], source: .both, devices: ["AB Shutter3", "2717:0040"],
                    keys: ["KEY_ENTER"], holdDelay: 600,
                    actions: [
                        Action(
                            name: "photo", command: ["gphoto2", "--capture-image"], on: [.up], keys: [], gesture: .tap,
                            timeout: .milliseconds(2500), cooldown: .seconds(1)),
                        Action(shell: #"echo "$VOLUME_GUARD_SEQ" >> /tmp/presses"#),
                    ]
                ))
        #expect(options.actions?[1].command == ["/bin/sh", "-c", #"echo "$VOLUME_GUARD_SEQ" >> /tmp/presses"#])
        #expect(options.actions?[1].directions == [.up, .down, .mute])
        #expect(options.actions?[1].timeout == .seconds(10))
        #expect(options.actions?[1].cooldown == .zero)
        #expect(options.actions?[1].gesture == .press, "every press, unless a gesture is named")
    }

    @Test("An empty file sets nothing, /dev/null too; a missing one too, unless it was named")
    func emptyAndMissing() throws {
        #expect(try ConfigFile.parse("# nothing yet\n", path: "config.toml") == Options())
        #expect(try ConfigFile(path: "/dev/null", required: true).read() == Options())
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString).toml").path
        #expect(try ConfigFile(path: missing).read() == Options())
        #expect(throws: ConfigError(path: missing, message: "cannot be read: No such file or directory")) {
            try ConfigFile(path: missing, required: true).read()
        }
        let directory = FileManager.default.temporaryDirectory.path
        #expect(throws: ConfigError(path: directory, message: "cannot be read: Is a directory")) { try ConfigFile(path: directory).read() }
    }

    @Test("The example in config/ is a valid file")
    func example() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/config.toml").path
        let options = try ConfigFile(path: path, required: true).read()
        #expect(options.actions?.first?.command == ["gphoto2", "--capture-image"])
        #expect(options.actions?.first?.directions == [.up])
    }

    @Test("The standard path follows XDG_CONFIG_HOME, else HOME")
    func standardPath() {
        #expect(ConfigFile.standardPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/volume-guard/config.toml")
        #expect(ConfigFile.standardPath(environment: ["XDG_CONFIG_HOME": "", "HOME": "/h"]) == "/h/.config/volume-guard/config.toml")
    }

    @Test("Every field of Options but the actions is a setting, named as its key")
    func everyFieldIsASetting() {
        let fields = Mirror(reflecting: Options()).children.compactMap(\.label)
        let keys = Options.settings.map { setting in
            setting.key.split(separator: "-").enumerated().map { $0 == 0 ? String($1) : $1.capitalized }.joined()
        }
        #expect(fields == keys + ["actions"])
    }

    struct Mistake: CustomStringConvertible, Sendable {
        var text: String
        var line: Int
        var key: String?
        var action: Int?
        var message: String
        var description: String { "\(key ?? "-") at \(line)" }
    }

    /// What an unknown key is told: every key, in the order of their declarations.
    static let unknownKey =
        "unknown key; known keys: sink, guard-mute, step, clamp-margin, history, socket, server, log-level, mode, repeat-period, repeat-delay, double-window, http, http-origins, http-tokens, source, devices, keys, hold-delay, mqtt, mqtt-user, mqtt-password-file, mqtt-ca-file, mqtt-cert-file, mqtt-key-file, mqtt-topic, mqtt-commands, mqtt-discovery, mqtt-discovery-prefix, action"

    static let mistakes: [Mistake] = [
        Mistake(
            text: "sink = \"a\"\nstepp = 5\n", line: 2, key: "stepp",
            message: unknownKey),
        Mistake(text: "# a comment\n\nstep = 200\n", line: 3, key: "step", message: "must be between 0.1 and 100 (percent)"),
        Mistake(text: "step = \"5\"\n", line: 1, key: "step", message: "must be a number (percent)"),
        Mistake(text: "history = 1.5\n", line: 1, key: "history", message: "must be a whole number"),
        Mistake(text: "history = 0\n", line: 1, key: "history", message: "must be between 1 and 65536 (presses)"),
        Mistake(text: "clamp-margin = 0\n", line: 1, key: "clamp-margin", message: "must be more than 0 and at most 25 (percent)"),
        Mistake(text: "guard-mute = \"no\"\n", line: 1, key: "guard-mute", message: "must be true or false"),
        Mistake(text: "mode = \"sometimes\"\n", line: 1, key: "mode", message: "must be one of \"always\", \"while-subscribed\""),
        Mistake(
            text: "  \"log-level\" = \"loud\"\n", line: 1, key: "log-level",
            message: "must be one of \"trace\", \"debug\", \"info\", \"notice\", \"warning\", \"error\", \"critical\""),
        Mistake(text: "socket = \"\"\n", line: 1, key: "socket", message: "must not be empty"),
        Mistake(
            text: "mqtt = \"http://pi.local\"\n", line: 1, key: "mqtt",
            message: "must start with mqtt:// or mqtts://, e.g. \"mqtt://192.168.1.10:1883\" or \"mqtts://broker.local\""),
        Mistake(
            text: "mqtt = \"mqtt://booth:secret@pi.local\"\n", line: 1, key: "mqtt",
            message: "must not hold a user or password: set mqtt-user and mqtt-password-file"),
        Mistake(text: "mqtt = \"mqtt://pi.local:0\"\n", line: 1, key: "mqtt", message: "has a bad port: 1 to 65535"),
        Mistake(text: "mqtt-topic = \"booth/#\"\n", line: 1, key: "mqtt-topic", message: "must not hold MQTT's wildcards + or #"),
        Mistake(
            text: "mqtt-topic = \"/booth\"\n", line: 1, key: "mqtt-topic",
            message: "must not have an empty level (a leading, trailing or double /)"),
        Mistake(
            text: "mqtt = \"mqtt://pi.local\"\nmqtt-ca-file = \"/etc/ca.pem\"\n", line: 2, key: "mqtt-ca-file",
            message: "is for TLS: write the broker as mqtts://"),
        Mistake(
            text: "mqtt = \"mqtts://pi.local\"\nmqtt-cert-file = \"/c.pem\"\n", line: 2, key: "mqtt-cert-file", message: "needs mqtt-key-file"),
        Mistake(
            text: "step = 5\n\n[guard]\nsink = \"a\"\n", line: 3, key: "guard",
            message: unknownKey),
        Mistake(
            text: "[[action]]\nrun = [\"a\"]\n\n[[action]]\nrun = [\"b\"]\ntimeout = 0\n", line: 6, key: "timeout", action: 2,
            message: "must be between 0.1 and 3600 (seconds)"),
        Mistake(
            text: "[[action]]\nrun = [\"a\"]\n\n[[action]]\nrun = [\"b\"]\nwhen = \"up\"\n", line: 6, key: "when", action: 2,
            message: "unknown key; known keys: name, on, source, device, gesture, run, shell, timeout, cooldown"),
        Mistake(
            text: "[[action]]\nrun = [\"a\"]\n\n[[action]]\nrun = [\"b\"]\ngesture = \"hold_start\"\n", line: 6, key: "gesture", action: 2,
            message: "must be one of \"press\", \"tap\", \"hold\", \"double\""),
        Mistake(
            text: "[[action]]\nrun = [\"a\"]\ngesture = 2\n", line: 3, key: "gesture", action: 1,
            message: "must be one of \"press\", \"tap\", \"hold\", \"double\""),
        Mistake(
            text: "[[action]]\nrun = [\"a\"]\ncooldown = -1\n", line: 3, key: "cooldown", action: 1,
            message: "must be between 0 and 3600 (seconds)"),
        Mistake(
            text: "[[action]]\nrun = \"gphoto2 --capture-image\"\n", line: 2, key: "run", action: 1,
            message: "must be a list of the program and its arguments, e.g. [\"gphoto2\", \"--capture-image\"] (or a command line with shell = true)"),
        Mistake(
            text: "[[action]]\nrun = []\n", line: 2, key: "run", action: 1,
            message: "must be a list of the program and its arguments, e.g. [\"gphoto2\", \"--capture-image\"] (or a command line with shell = true)"),
        Mistake(text: "[[action]]\nshell = true\nrun = [\"a\"]\n", line: 3, key: "run", action: 1, message: "must be a shell command line (with shell = true)"),
        Mistake(
            text: "[[action]]\non = \"sideways\"\nrun = [\"a\"]\n", line: 2, key: "on", action: 1,
            message: "must be \"up\", \"down\", \"mute\", a key such as \"KEY_ENTER\", or a list of them, e.g. [\"up\", \"down\"]"),
        Mistake(
            text: "keys = [\"KEY_NOPE\"]\n", line: 1, key: "keys", message: "\"KEY_NOPE\" is not a key the kernel knows (KEY_ENTER, KEY_PAGEUP, BTN_LEFT, …)"),
        Mistake(text: "source = \"usb\"\n", line: 1, key: "source", message: "must be one of \"sink\", \"input\", \"both\""),
        Mistake(text: "devices = [\"\"]\n", line: 1, key: "devices", message: "must not be empty"),
        Mistake(
            text: "step = 5\n\n[[action]]\nname = \"x\"\n", line: 3, key: nil, action: 1,
            message: "an [[action]] needs `run`: the program and its arguments, e.g. run = [\"gphoto2\", \"--capture-image\"]"),
        Mistake(text: "action = 3\n", line: 1, key: "action", message: "must be a list of [[action]] tables"),
        Mistake(
            text: "step = 5\nhttp = \"example.com:80\"\n", line: 2, key: "http",
            message: "must be a port or an IP address and port, e.g. \"127.0.0.1:8370\" or \"[::1]:8370\" (port 0 to 65535)"),
        Mistake(text: "http = 8370\n", line: 1, key: "http", message: "must be an address"),
        Mistake(text: "http-origins = \"http://127.0.0.1:8000\"\n", line: 1, key: "http-origins", message: "must be a list of origins"),
        Mistake(
            text: "http-origins = [\"*\"]\n", line: 1, key: "http-origins",
            message: "must be web page origins: scheme, host and port, e.g. \"http://127.0.0.1:8000\" (no path, no \"*\")"),
        Mistake(
            text: "http-origins = [\"http://127.0.0.1:8000/booth.html\"]\n", line: 1, key: "http-origins",
            message: "must be web page origins: scheme, host and port, e.g. \"http://127.0.0.1:8000\" (no path, no \"*\")"),
    ]

    @Test("A mistake names the file, the line and the key", arguments: mistakes)
    func mistake(_ mistake: Mistake) {
        do {
            let options = try ConfigFile.parse(mistake.text, path: "/home/u/.config/volume-guard/config.toml")
            Issue.record("accepted: \(options)")
        } catch {
            #expect(
                error
                    == ConfigError(
                        path: "/home/u/.config/volume-guard/config.toml", line: mistake.line, key: mistake.key, action: mistake.action,
                        message: mistake.message
                    ))
        }
    }

    @Test("A syntax error names the line and column the TOML parser found")
    func syntax() {
        do {
            _ = try ConfigFile.parse("step = 5\nsink = \"unterminated\n", path: "c.toml")
            Issue.record("accepted")
        } catch {
            #expect(error.line == 2)
            #expect(error.column != nil)
            #expect(error.key == nil)
            #expect(error.description.hasPrefix("c.toml:2:"), "\(error)")
        }
    }

    @Test("The message reads like a compiler's")
    func description() {
        #expect(
            ConfigError(path: "c.toml", line: 3, key: "step", message: "must be between 0.1 and 100 (percent)").description
                == "c.toml:3: key \"step\": must be between 0.1 and 100 (percent)")
        #expect(
            ConfigError(path: "c.toml", line: 9, key: "timeout", action: 2, message: "must be a number (seconds)").description
                == "c.toml:9: key \"timeout\" of [[action]] 2: must be a number (seconds)")
        #expect(
            ConfigError(path: "c.toml", message: "cannot be read: Permission denied").description
                == "c.toml: cannot be read: Permission denied")
    }

    @Test("Flags win over the file, the file over nothing")
    func layering() {
        let file = Options(sink: "a", step: 5, history: 10, logLevel: .debug, actions: [Action(command: ["true"])])
        let flags = Options(step: 2, mode: .whileSubscribed)
        #expect(
            file.overridden(by: flags)
                == Options(sink: "a", step: 2, history: 10, logLevel: .debug, mode: .whileSubscribed, actions: [Action(command: ["true"])]))
        #expect(Options().overridden(by: flags) == flags)
    }
}

@Suite("Finding a key's line")
struct ConfigLinesTests {
    let lines = ConfigLines(
        """
        # head
        step = 5
        "quoted key" = 1
        dotted.key = 2

        [[action]]
        run = ["a"]
          timeout=3
        [[action]]
        # no run here
        [action.env]
        """)

    @Test func keys() {
        #expect(lines.line(of: "step", in: .root) == 2)
        #expect(lines.line(of: "quoted key", in: .root) == 3)
        #expect(lines.line(of: "dotted", in: .root) == 4)
        #expect(lines.line(of: "action", in: .root) == 6)
        #expect(lines.line(of: "timeout", in: .element("action", 1)) == 8)
        #expect(lines.line(of: "run", in: .element("action", 2)) == 9, "falls back to the element's header")
        #expect(lines.line(of: "run", in: .element("action", 3)) == 6, "no such element: the array's first header")
        #expect(lines.line(of: "missing", in: .root) == nil)
        #expect(lines.line(of: .element("action", 2)) == 9)
    }
}
