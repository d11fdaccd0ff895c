import GuardSettings
import MQTTBridge

extension BrokerFacts {
    /// How long the broker has to answer: the TCP connection, TLS and its CONNACK.
    static let patience: Duration = .seconds(5)

    /// One connection to the broker `settings` name, with its credentials, closed once it is answered. Its
    /// client id is the daemon's with `-doctor`: a broker drops the older of two connections of one id,
    /// which would be the daemon's.
    static func ask(_ settings: BrokerSettings) async -> BrokerFacts {
        let broker = "\(settings.address)"
        let password: String?
        do {
            password = try settings.passwordFile.map(PasswordFile.read)
        } catch {
            return BrokerFacts(broker: broker, trial: .noPassword("\(error)"))
        }
        let (events, sink) = AsyncStream.makeStream(of: BrokerConnection.Event.self)
        let connection = BrokerConnection(clientID: settings.clientID + "-doctor") { sink.yield($0) }
        var request = BrokerConnection.ConnectRequest(settings, password: password)
        request.deadline = patience
        connection.connect(request)
        var trial = BrokerTrial.failed(reason: "the connection closed without an answer", tls: false)
        answer: for await event in events {
            switch event {
            case .connected: trial = .connected
            case .refused(let code, let reason): trial = .refused(code: Int(code), reason: reason)
            case .failed(let reason, let tls): trial = .failed(reason: reason, tls: tls)
            case .lost(let reason): trial = .failed(reason: reason, tls: false)
            case .closed: break
            case .acknowledged, .received: continue answer
            }
            break answer
        }
        connection.disconnect()
        connection.close()
        return BrokerFacts(broker: broker, trial: trial)
    }
}
