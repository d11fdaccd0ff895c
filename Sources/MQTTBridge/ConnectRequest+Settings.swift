import GuardSettings

extension BrokerConnection.ConnectRequest {
    /// The request to the broker `settings` name: its address, user and TLS files, with `password` (read
    /// from `mqtt-password-file` by the caller) and `will`.
    public init(_ settings: BrokerSettings, password: String?, will: BrokerConnection.Will? = nil) {
        let tls = settings.address.tls ? BrokerConnection.TLS(caFile: settings.caFile, certFile: settings.certFile, keyFile: settings.keyFile) : nil
        self.init(host: settings.address.host, port: settings.address.port, username: settings.user, password: password, tls: tls, will: will)
    }
}
