import Foundation

/// A program running in the background while a test goes on (`volume-guard watch`, an example client),
/// its standard output collected as it comes.
public final class BackgroundCommand: @unchecked Sendable {
    private let process = Process()
    private let pipe = Pipe()
    private let collected = Collected()

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func append(_ more: Data) { lock.withLock { data.append(more) } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
    }

    public init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = pipe
        let collected = collected
        pipe.fileHandleForReading.readabilityHandler = { collected.append($0.availableData) }
        try process.run()
    }

    /// Killed outright: a child of the test process starts with most signals blocked, SIGTERM too.
    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// Sends it `signal`.
    public func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Everything it printed so far.
    public var output: String { collected.text }

    /// Waits for it to end; its exit status.
    public func wait() -> Int32 {
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
        collected.append(pipe.fileHandleForReading.readDataToEndOfFile())
        return process.terminationStatus
    }
}
