import Foundation
import GuardClient
import GuardProtocol

/// The real `volume-guard run`, as a separate process against a private audio server.
final class Daemon: @unchecked Sendable {
    /// The built executable: `VOLUME_GUARD_BINARY`, else beside the test bundle (`swift build` makes it).
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["VOLUME_GUARD_BINARY"] { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("volume-guard").path
    }

    let process = Process()
    let socketPath: String
    let logPath: String
    let client: GuardClient

    /// Starts the daemon and waits until its socket answers and it guards (or reports why not).
    init(on server: AudioServer, arguments: [String] = [], waitForGuarding: Bool = true) async throws {
        socketPath = server.runtimeDirectory + "/volume-guard.sock"
        logPath = server.runtimeDirectory + "/volume-guard.log"
        client = GuardClient(socketPath: socketPath)
        FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["run", "--socket", socketPath, "--log-level", "debug"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(server.environment) { $1 }
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
        let up = await eventually {
            guard case .status(let status)? = try? await client.request(Request(.status)) else { return false }
            return !waitForGuarding || status.state == .guarding
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

    /// Sends `signal` and waits for the process to end; returns its exit status (nil if killed by a signal).
    func stop(with signal: Int32 = SIGTERM) async -> Int32? {
        kill(process.processIdentifier, signal)
        _ = await eventually(within: .seconds(15)) { !process.isRunning }
        guard !process.isRunning else { return nil }
        return process.terminationReason == .exit ? process.terminationStatus : nil
    }
}

/// A subscribed client that records every line the daemon sends it.
final class Subscriber: Sendable {
    private actor Log {
        var messages: [ServerMessage] = []
        func append(_ message: ServerMessage) { messages.append(message) }
    }

    private let log = Log()
    private let reader: Task<Void, any Error>

    init(to daemon: Daemon) async throws {
        let log = log
        let client = daemon.client
        reader = Task {
            try await client.withSession { session in
                try await session.send(Request(.subscribe))
                while let message = try await session.next() {
                    await log.append(message)
                }
            }
        }
        guard await eventually({ await self.subscribed }) else { throw TestFailure("no subscribed reply") }
    }

    deinit { reader.cancel() }

    var subscribed: Bool {
        get async { await log.messages.contains { if case .subscribed = $0 { true } else { false } } }
    }

    var presses: [PressMessage] {
        get async { await log.messages.compactMap { if case .press(let press) = $0 { press } else { nil } } }
    }

    /// Waits until at least `count` presses arrived; returns them all.
    func waitForPresses(_ count: Int) async throws -> [PressMessage] {
        guard await eventually({ await self.presses.count >= count }) else {
            throw TestFailure("expected \(count) presses, got \(await presses.map { "\($0.direction)x\($0.count)" })")
        }
        return await presses
    }
}
