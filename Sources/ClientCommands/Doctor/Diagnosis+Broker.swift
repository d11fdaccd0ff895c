import BrokerCore

/// The MQTT broker, connected to with the daemon's settings: it answers, and the credentials hold. The
/// words are the daemon's own (`BrokerError`), so `doctor`, `status` and the log say one thing.
extension Diagnosis {
    func broker(_ broker: BrokerFacts) -> Finding {
        let error: BrokerError
        switch broker.trial {
        case .connected: return .ok(.mqtt, "the broker at \(broker.broker) accepts the connection")
        case .refused(let code, let reason): error = .refused(code: code, reason: reason)
        case .failed(let reason, let tls): error = .failed(reason: reason, tls: tls)
        case .noPassword(let reason): return .wrong(.mqtt, reason, fix: "write the broker's password in the file mqtt-password-file names")
        }
        let fix = error.hint ?? "check that a broker runs at \(broker.broker) and that this machine reaches it"
        return .wrong(.mqtt, "\(broker.broker): \(error.text)", fix: fix)
    }
}
