import ArgumentParser
import FoundationEssentials
import Glibc
import GuardConfig
import GuardProtocol
import GuardSettings
import InputDevices
import VolumeGuardClient
import VolumeGuardCore

/// `volume-guard learn`: press the remote's button, get the config. It listens on every input device with
/// keys it may read (and the default sink, where an audio server answers), reports the device and key it
/// heard and whether the desktop turned the key into a volume change, and recommends the source, devices
/// and keys; `--write` puts them in the config file, `--setup` also does the steps after.
public struct Learn: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        abstract: "Press the button on your remote: learn which device and key it is, and write the config for it.",
        discussion: """
            It listens on every input device with keys that it can read, without grabbing any, and, where an audio server \
            answers, watches the default sink (a change there is put straight back). A fresh Raspberry Pi's remote is readable by \
            root alone: run it with sudo, and it sets up the user who ran sudo (that user's config file, read and written as that user). \
            It waits --timeout seconds for the first key, then --next seconds after each new key for another (a remote with two \
            buttons, a second key for a second action); --count ends it after that many keys. A running daemon is paused while it \
            listens, so that it does not hold the remote, and resumed after.
            It reports each device heard (name, vendor:product, bus, Bluetooth address, stable links) and key, and whether the \
            desktop turned the key into a volume change; then the settings: source = "input" when it read the key on a device (the \
            daemon grabs the remote: no desktop needed, no volume popup), "sink" when only the sink changed. A device is named by \
            the most specific match that survives a reconnect: its Bluetooth address, else its name, its by-id link, its ids.
            --write sets source, devices and keys in the config file and keeps every other line and comment (with a command after \
            --, it also adds an [[action]] that runs it on a press of the first key learned, with a cooldown of a second, in place of the one an \
            earlier learn wrote); the file keeps its mode and owner (a symlink stays one: its target is written); the old file is kept \
            as FILE.bak (or .bak.1, …), and the result is checked as `volume-guard config` checks it: a result with a mistake is \
            not written. Then it prints the commands still to run: the udev rule when the user cannot read the remote, lingering \
            when the user has no seat, and the service. --setup writes and runs them (it asks for sudo once when not root).
            Exit codes: 0 learned; 1 nothing pressed in time, or a step failed; 2 a mistake in the config file, or usage.
            """
    )

    @OptionGroup var socket: SocketOptions

    @Option(help: ArgumentHelp("Seconds to wait for the first key.", valueName: "seconds"))
    var timeout: Double = 60

    @Option(help: ArgumentHelp("Seconds to wait for another key after each new one.", valueName: "seconds"))
    var next: Double = 5

    @Option(help: ArgumentHelp("End once this many keys are learned.", valueName: "n"))
    var count: Int?

    @Flag(help: "Write the learned settings into the config file.")
    var write = false

    @Flag(help: "Write them, then do the steps after: the udev rule, lingering and the service (asks for sudo once).")
    var setup = false

    @Argument(
        parsing: .postTerminator,
        help: ArgumentHelp(
            "After --: a program and its arguments, written as an [[action]] run on a press of the first key learned (it implies --write).",
            valueName: "command"))
    var command: [String] = []

    public func validate() throws {
        if !(0.1...3600).contains(timeout) { throw ValidationError("--timeout must be between 0.1 and 3600 seconds") }
        if !(0...3600).contains(next) { throw ValidationError("--next must be between 0 and 3600 seconds") }
        if let count, count < 1 { throw ValidationError("--count must be 1 or more") }
    }

    public func run() async throws {
        if setup && getuid() != 0 { try Self.againWithSudo() }
        let user = InvokingUser.current()
        let environment = user.environment()
        // libpulse reads the cookie's path from the process's own environment: the user's, under sudo.
        if user.isSudo { if let cookie = user.cookie() { setenv("PULSE_COOKIE", cookie, 1) } else { unsetenv("PULSE_COOKIE") } }
        // A file named with --config may not exist yet either: learn makes it.
        let file = socket.configFile.file(environment: environment, required: false)
        let files = UserFiles(file: file, user: user)
        let options = try exitingOnMistake { () throws(ConfigError) in try files.read() }
        let socketPath = socket.path(options: options, environment: environment)
        let limits = Learning.Limits(first: .seconds(timeout), next: .seconds(next), count: count)
        let listening = Listening(limits: limits, socketPath: socketPath, server: options.server ?? environment["PULSE_SERVER"])
        let heard = await listening.run()
        if heard.interrupted {
            printError("volume-guard: interrupted; nothing written")
            throw ExitCode(130)
        }
        guard let learned = LearnedSetup(heard.learning, present: heard.present) else {
            printError("volume-guard: nothing was pressed in \(listening.format(limits.first))")
            for hint in heard.hints { printError("  " + hint) }
            throw ExitCode.failure
        }
        let report = LearnReport(learned: learned, learning: heard.learning, sinkWatched: heard.sinkWatched, root: getuid() == 0)
        for line in report.lines { printLine(line) }
        let written = write || setup || !command.isEmpty
        let action = command.isEmpty ? nil : learned.action(running: command)
        let plan = LearnPlan(
            path: file.path, settings: learned.settings, action: action, writes: written, named: socket.configFile.config, root: getuid() == 0)
        for line in plan.settingLines { printLine(line) }
        if written {
            let backup = try exitingOnMistake { () throws(ConfigError) in try files.write(learned.settings, action: action) }
            printLine("Written, and checked as `volume-guard config` checks it" + (backup.map { "; the old file is \($0)" } ?? "") + ".")
        }
        let facts = LearnSteps.Facts(
            user: user.name, source: learned.source, devices: learned.devices.map(\.match.description),
            readable: heard.learning.learned.allSatisfy { user.canRead($0.device.node) }, hasSeat: user.hasSeat, lingers: user.lingers,
            daemonRunning: heard.daemonRunning, written: written)
        let steps = LearnSteps.steps(facts, group: user.groupValue)
        if setup {
            let matches = learned.devices.map(\.match)
            if !SetupRunner(user: user, matches: matches, present: heard.present).run(steps, facts) { throw ExitCode.failure }
        } else {
            for line in LearnPlan.stepLines(steps, facts) { printLine(line) }
        }
    }

    /// Runs this very command again with sudo, which asks for the password once: --setup installs a udev
    /// rule and enables lingering, which root does.
    private static func againWithSudo() throws -> Never {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        let executable = length > 0 ? String(decoding: path.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        let arguments = ["sudo", "--", executable] + CommandLine.arguments.dropFirst()
        printError("volume-guard: --setup installs a udev rule and enables lingering, which root does: running it with sudo")
        _ = withCStrings(arguments) { argv in execvp("sudo", argv) }
        printError("volume-guard: cannot run sudo: \(String(cString: strerror(errno)))")
        throw ExitCode.failure
    }
}
