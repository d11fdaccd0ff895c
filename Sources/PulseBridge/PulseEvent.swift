/// What the audio server reports on its own: subscription events and the end of the connection.
///
/// A subscription event names an object, never its values or who changed it; read the object to learn more.
public enum PulseEvent: Hashable, Sendable {
    case sinkAdded(index: UInt32)
    case sinkChanged(index: UInt32)
    case sinkRemoved(index: UInt32)
    /// Server settings changed; the default sink may be another one now.
    case serverChanged
    /// The connection failed or the server went away. A connection never comes back: make a new one.
    case disconnected(reason: String)
}

/// The facts of `pa_server_info` the guard uses, copied out of libpulse's callback.
public struct ServerInfo: Hashable, Sendable {
    public var name: String
    public var version: String
    /// nil when the server has no default sink (there may be no sink at all).
    public var defaultSink: String?

    public init(name: String, version: String, defaultSink: String?) {
        self.name = name
        self.version = version
        self.defaultSink = defaultSink
    }
}

public enum PulseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Connecting failed: no server at that address, refused, or it went away while connecting.
    case connectionFailed(String)
    /// A request failed or was cancelled because the connection failed.
    case requestFailed(String)

    public var description: String {
        switch self {
        case .connectionFailed(let reason): "cannot connect to the audio server: \(reason)"
        case .requestFailed(let what): "audio server request failed: \(what)"
        }
    }
}
