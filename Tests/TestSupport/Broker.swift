import Foundation

/// A private Mosquitto broker started by scripts/mqtt-broker in a directory of its own, stopped and removed
/// when the test lets go of it.
public final class Broker: Sendable {
    public let directory: String
    public let port: Int
    /// The TLS listener's port, with `--tls`.
    public let tlsPort: Int?
    /// The CA that signed the TLS listener's certificate, with `--tls`.
    public let ca: String?
    /// The only user who may connect, and its password, with `--password USER:PASS`.
    public let login: (user: String, password: String)?

    /// Starts one; `options` are the script's (`--password USER:PASS`, `--tls`).
    public init(_ options: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-broker-\(UUID().uuidString)").path
        login = options.firstIndex(of: "--password").flatMap { index in
            guard index + 1 < options.count else { return nil }
            let pair = options[index + 1].split(separator: ":", maxSplits: 1)
            return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
        }
        let exports = try Self.script(["start", directory] + options)
        guard let port = exports["MQTT_BROKER_PORT"].flatMap(Int.init) else { throw TestFailure("no port in \(exports)") }
        self.port = port
        tlsPort = exports["MQTT_BROKER_TLS_PORT"].flatMap(Int.init)
        ca = exports["MQTT_BROKER_CA"].flatMap { $0.isEmpty ? nil : $0 }
    }

    deinit {
        _ = try? command([Self.path, "stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Ends the broker, as a crash would.
    public func stop() throws { _ = try Self.script(["stop", directory]) }

    /// Starts the broker again (ending it first if it runs) on the same ports, with the same config. It
    /// keeps nothing of before: no session, no retained message.
    public func restart() throws { _ = try Self.script(["restart", directory]) }

    /// What logs `mosquitto_sub` and `mosquitto_pub` in to this broker's plain listener.
    public var clientOptions: [String] {
        ["-h", "127.0.0.1", "-p", "\(port)"] + (login.map { ["-u", $0.user, "-P", $0.password] } ?? [])
    }

    /// A listener in the broker's directory that accepts connections and never answers; its port.
    public func silentListener() throws -> Int {
        let exports = try Self.script(["silent", directory])
        guard let port = exports["MQTT_SILENT_PORT"].flatMap(Int.init) else { throw TestFailure("no port in \(exports)") }
        return port
    }

    /// The broker's log so far.
    public var log: String { (try? String(contentsOfFile: "\(directory)/broker.log", encoding: .utf8)) ?? "" }

    /// Waits until the broker's log has a line holding `text`.
    public func waitForLog(_ text: String) async throws {
        guard await eventually(within: .seconds(10), { self.log.contains(text) }) else {
            throw TestFailure("the broker's log never said \"\(text)\":\n\(log)")
        }
    }

    /// `mosquitto_sub` waiting for one message on `topic`, subscribed when this returns.
    public func subscriber(to topic: String) async throws -> BackgroundCommand {
        let id = "sub-\(UUID().uuidString.prefix(8))"
        let subscriber = try BackgroundCommand(
            ["timeout", "-s", "KILL", "15", "mosquitto_sub"] + clientOptions + ["-i", id, "-t", topic, "-C", "1", "-v"])
        try await waitForLog("\(id) 0 \(topic)")
        return subscriber
    }

    /// Publishes `message` on `topic` with `mosquitto_pub`, retained with `retain`.
    public func publish(_ message: String, on topic: String, retain: Bool = false) throws {
        let (status, _) = try command(
            ["timeout", "-s", "KILL", "15", "mosquitto_pub"] + clientOptions + ["-t", topic, "-m", message] + (retain ? ["-r"] : []))
        guard status == 0 else { throw TestFailure("mosquitto_pub failed with \(status)") }
    }

    private static let path = repositoryRoot.appendingPathComponent("scripts/mqtt-broker").path

    /// Runs the script; its `export KEY=VALUE` lines.
    private static func script(_ arguments: [String]) throws -> [String: String] {
        let (status, output) = try command([path] + arguments)
        guard status == 0 else { throw TestFailure("scripts/mqtt-broker \(arguments.joined(separator: " ")) failed with \(status)") }
        var exports: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2 { exports[String(pair[0])] = String(pair[1]) }
        }
        return exports
    }
}
