extension BrokerConnection.ConnectRequest: CustomStringConvertible, CustomReflectable {
    /// Where it connects and as whom; never the password.
    public var description: String {
        let scheme = tls == nil ? "mqtt" : "mqtts"
        let user = username.map { "\($0)@" } ?? ""
        return "\(scheme)://\(user)\(host):\(port)"
    }

    /// The description alone, so that `dump` and `debugPrint` cannot show the password either.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
