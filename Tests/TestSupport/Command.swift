import Foundation

/// Runs a program to its end and returns its exit status and standard output.
@discardableResult
public func command(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
    try run(arguments, environment: environment, errors: FileHandle.standardError)
}

/// Runs a program to its end and returns its exit status, standard output and standard error.
public func outcome(of arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String, errors: String) {
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: errors.path, contents: nil) else { throw TestFailure("cannot create \(errors.path)") }
    defer { try? FileManager.default.removeItem(at: errors) }
    let (status, output) = try run(arguments, environment: environment, errors: FileHandle(forWritingTo: errors))
    return (status, output, try String(contentsOf: errors, encoding: .utf8))
}

private func run(_ arguments: [String], environment: [String: String], errors: FileHandle) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The repository's root, for its scripts and build products.
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Waits until `condition` holds, checking every `interval`; false if it still does not after `timeout`.
/// A bounded wait for something to happen, never an assertion about speed.
public func eventually(
    within timeout: Duration = .seconds(10), every interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
