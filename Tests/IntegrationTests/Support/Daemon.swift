import Foundation
import GuardProtocol
import TestSupport
import VolumeGuardClient

/// The real `volume-guard run`, as a separate process against a private audio server.
final class Daemon: @unchecked Sendable {
    /// The built executable: `VOLUME_GUARD_BINARY`, else beside the test bundle (`swift build` makes it).
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["VOLUME_GUARD_BINARY"] { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("volume-guard").path
    }

    /// A copy of the executable that any user can run: the checkout may lie under a directory that other
    /// users cannot enter (a home directory, mode 0700), and tests run steps as other users.
    static let binaryForAnyone: String = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("volume-guard-bin-\(UUID().uuidString.prefix(8))").path
        let copy = directory + "/volume-guard"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            try FileManager.default.copyItem(atPath: binary, toPath: copy)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy)
        } catch {
            fatalError("cannot copy \(binary) to \(copy): \(error)")
        }
        return copy
    }()

    let process = Process()
    let socketPath: String
    let logPath: String
    /// The daemon's own XDG_STATE_HOME (where its record of original levels goes), unless the test gives
    /// one: beside the socket, so that no two tests share a record and none touches the user's.
    let stateDirectory: String
    let client: GuardClient

    /// Starts the daemon and waits until its socket answers and it guards (or reports why not).
    convenience init(
        on server: AudioServer, arguments: [String] = [], environment: [String: String] = [:], launcher: [String] = [],
        waitForGuarding: Bool = true, waitUntilServing: Bool = true
    ) async throws {
        try await self.init(
            socketPath: server.runtimeDirectory + "/volume-guard.sock", environment: server.environment.merging(environment) { $1 },
            arguments: arguments, launcher: launcher, waitForGuarding: waitForGuarding, waitUntilServing: waitUntilServing
        )
    }

    /// Starts the daemon on `socketPath` (its log goes beside it), through `launcher` if given (a command
    /// that then runs the daemon's own, such as `setpriv` or `prlimit`), and waits as above unless
    /// `waitUntilServing` is false (the test calls `waitUntilServing()` itself).
    init(
        socketPath: String, environment: [String: String], arguments: [String] = [], launcher: [String] = [],
        binary: String = Daemon.binary, waitForGuarding: Bool = true, waitUntilServing: Bool = true
    ) async throws {
        self.socketPath = socketPath
        let directory = (socketPath as NSString).deletingLastPathComponent
        logPath = directory + "/volume-guard.log"
        client = GuardClient(socketPath: socketPath)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let command = launcher + [binary, "run", "--socket", socketPath, "--log-level", "debug"] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        // Nor does a config file of the user's apply.
        let isolated = ["XDG_CONFIG_HOME": directory + "/daemon-config", "XDG_STATE_HOME": directory + "/daemon-state"]
        // The harness's own variables are not the daemon's: an action listing its environment would show them.
        var inherited = ProcessInfo.processInfo.environment
        for harness in inherited.keys where harness == "VOLUME_GUARD_BINARY" || harness.hasPrefix("VOLUME_GUARD_TEST_") {
            inherited[harness] = nil
        }
        let merged = inherited.merging(isolated) { $1 }.merging(environment) { $1 }
        stateDirectory = merged["XDG_STATE_HOME"]!
        process.environment = merged
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
        if waitUntilServing { try await self.waitUntilServing(guarding: waitForGuarding) }
    }

    /// Waits until the socket answers and the daemon guards (or, with `guarding` false, just answers).
    func waitUntilServing(guarding: Bool = true) async throws {
        let up = await eventually {
            guard case .status(let status)? = try? await client.request(Request(.status)) else { return false }
            return !guarding || status.state == .guarding
        }
        guard up else { throw TestFailure("the daemon did not start guarding; its log:\n\(log)") }
    }

    deinit {
        if process.isRunning { process.interrupt() }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func status() async throws -> StatusMessage {
        guard case .status(let status) = try await client.request(Request(.status)) else { throw TestFailure("no status reply") }
        return status
    }

    var pid: pid_t { process.processIdentifier }

    /// How many files the daemon has open now.
    var openFiles: Int {
        get throws { try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count }
    }

    /// How many threads the daemon runs now.
    var threads: Int {
        get throws { try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count }
    }

    /// Whether the daemon runs natively, uninstrumented: a sanitizer (`scripts/sanitize`, its shadow memory
    /// and its own thread) or qemu-user (`scripts/test --release --arch arm64`, its translated code and
    /// threads) counts in the daemon's memory and wake-ups, whose bounds hold for a native daemon only.
    static let runsNatively = ["VOLUME_GUARD_TEST_SANITIZER", "VOLUME_GUARD_TEST_QEMU_USER"].allSatisfy {
        ProcessInfo.processInfo.environment[$0] == nil
    }

    /// The daemon's own resident memory (anonymous pages: heap and stacks) in KiB. Code and library
    /// pages are shared and reclaimable, and come and go with what has run lately: not what the daemon
    /// holds on to.
    var anonymousKiB: Int {
        get throws { try procField("/proc/\(pid)/status", "RssAnon:") }
    }

    /// Each thread's context switches so far, voluntary and not (`/proc/PID/task/*/status`), by thread id,
    /// with the thread's name. A thread that ends while they are read is left out.
    var contextSwitches: [String: (name: String, count: Int)] {
        get throws {
            var threads: [String: (name: String, count: Int)] = [:]
            for thread in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
                let directory = "/proc/\(pid)/task/\(thread)"
                guard let name = try? String(contentsOfFile: directory + "/comm", encoding: .utf8),
                    let voluntary = try? procField(directory + "/status", "voluntary_ctxt_switches:"),
                    let involuntary = try? procField(directory + "/status", "nonvoluntary_ctxt_switches:")
                else { continue }
                threads[thread] = (name.trimmingCharacters(in: .whitespacesAndNewlines), voluntary + involuntary)
            }
            return threads
        }
    }

    /// The daemon's soft limit on open files.
    var openFileLimit: Int {
        get throws { try procField("/proc/\(pid)/limits", "Max open files") }
    }

    /// Sends `signal` without waiting (SIGHUP: reload).
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Sends `signal` and waits for the process to end; returns its exit status (nil if killed by a signal).
    func stop(with signal: Int32 = SIGTERM) async -> Int32? {
        kill(process.processIdentifier, signal)
        _ = await eventually(within: .seconds(15)) { !process.isRunning }
        guard !process.isRunning else { return nil }
        return process.terminationReason == .exit ? process.terminationStatus : nil
    }
}

/// The first number on the line of a /proc file that starts with `label`.
private func procField(_ path: String, _ label: String) throws -> Int {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let line = text.split(separator: "\n").first { $0.hasPrefix(label) } ?? ""
    guard let value = line.dropFirst(label.count).split(whereSeparator: \.isWhitespace).first.flatMap({ Int($0) }) else {
        throw TestFailure("no \(label) in \(path)")
    }
    return value
}

/// A subscribed client that records every line the daemon sends it.
final class Subscriber: Sendable {
    private actor Log {
        var messages: [ServerMessage] = []
        var presses: [PressMessage] = []
        var ended = false
        func end() { ended = true }
        func append(_ message: ServerMessage) {
            messages.append(message)
            if case .press(let press) = message { presses.append(press) }
        }
    }

    private let log = Log()
    private let reader: Task<Void, Never>

    /// Sends `request` (a `subscribe`, perhaps with `since`) and waits for its reply.
    init(to daemon: Daemon, request: Request = Request(.subscribe)) async throws {
        let log = log
        let client = daemon.client
        reader = Task {
            try? await client.withSession { session in
                try await session.send(request)
                while let message = try await session.next() {
                    await log.append(message)
                }
            }
            await log.end()
        }
        guard await eventually({ await self.subscribed }) else { throw TestFailure("no subscribed reply") }
    }

    deinit { reader.cancel() }

    var subscribed: Bool {
        get async { await log.messages.contains { if case .subscribed = $0 { true } else { false } } }
    }

    /// Every line received, in order.
    var messages: [ServerMessage] {
        get async { await log.messages }
    }

    var gestures: [GestureMessage] {
        get async { await log.messages.compactMap { if case .gesture(let gesture) = $0 { gesture } else { nil } } }
    }

    var presses: [PressMessage] {
        get async { await log.presses }
    }

    var states: [StateMessage] {
        get async { await log.messages.compactMap { if case .state(let state) = $0 { state } else { nil } } }
    }

    /// The reply to the subscribe request.
    var reply: SubscribedMessage? {
        get async { await log.messages.lazy.compactMap { if case .subscribed(let reply) = $0 { reply } else { nil } }.first }
    }

    /// Whether the daemon ended the connection.
    var ended: Bool {
        get async { await log.ended }
    }

    /// Waits until at least `count` presses arrived; returns them all.
    func waitForPresses(_ count: Int) async throws -> [PressMessage] {
        guard await eventually({ await self.presses.count >= count }) else {
            throw TestFailure("expected \(count) presses, got \(await presses.map { "\($0.direction?.rawValue ?? "-")x\($0.count)" })")
        }
        return await presses
    }
}
