import Foundation
import GuardProtocol
import TestSupport

extension Daemon {
    /// Starts the daemon on `server` with a config file holding `config`, beside its socket, which `reload`
    /// rewrites.
    convenience init(on server: AudioServer, config: String, arguments: [String] = []) async throws {
        let path = server.runtimeDirectory + "/config.toml"
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        try await self.init(on: server, arguments: ["--config", path] + arguments)
    }

    /// Rewrites the config file with `config`, sends SIGHUP and waits until the daemon has applied it.
    func reload(_ config: String) async throws {
        let path = (socketPath as NSString).deletingLastPathComponent + "/config.toml"
        let reloads = log.components(separatedBy: "configuration reloaded").count
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        send(SIGHUP)
        guard await eventually({ log.components(separatedBy: "configuration reloaded").count > reloads }) else {
            throw TestFailure("the daemon did not reload; its log:\n\(log)")
        }
    }

    /// The broker link as `status` shows it; nil without `mqtt`.
    func brokerStatus() async throws -> BrokerStatusMessage? {
        try await status().mqtt
    }

    /// Waits until the broker link's state is `state`; throws with its status and log otherwise.
    func waitForBroker(_ state: String, within timeout: Duration = .seconds(15)) async throws {
        guard try await eventually(within: timeout, { try await brokerStatus()?.state == state }) else {
            throw TestFailure("the broker link never became \(state): \(String(describing: try await brokerStatus())); log:\n\(log)")
        }
    }

    /// Waits until the broker link reports an error; returns its status.
    func waitForBrokerError(within timeout: Duration = .seconds(15)) async throws -> BrokerStatusMessage {
        var found: BrokerStatusMessage?
        _ = try await eventually(within: timeout) {
            found = try await brokerStatus()
            return found?.error != nil
        }
        guard let found, found.error != nil else { throw TestFailure("no broker error in status; log:\n\(log)") }
        return found
    }
}

/// The config line of a broker at `port` on loopback (`mqtts` with `tls`).
func brokerConfig(port: Int, tls: Bool = false) -> String {
    "mqtt = \"\(tls ? "mqtts" : "mqtt")://127.0.0.1:\(port)\"\n"
}

/// This machine's name, as the daemon's default topic prefix holds it (gethostname(2)'s).
let hostName = ((try? String(contentsOfFile: "/proc/sys/kernel/hostname", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
