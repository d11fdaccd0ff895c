import GuardProtocol
import PulseBridge
import VolumeGuardCore

/// Watches the default sink while `learn` listens, to see whether the desktop turns the remote's key into
/// a volume change, and puts each change straight back: the user's volume is as it was when learn ends.
///
/// Only where an audio server answers (within `connectTimeout`); learn works without one, and says so.
struct SinkListener {
    /// The server, and the sink's level when learn began.
    let serverName: String
    let sink: SinkState
    private let connection: PulseConnection
    private let events: AsyncStream<PulseEvent>

    static let connectTimeout: Duration = .seconds(3)

    /// Connects to `server` (libpulse's address; nil for the default) and reads the default sink; the reason
    /// instead, when no server answers within `connectTimeout` or it has no default sink.
    static func start(server: String?) async -> Result<SinkListener, Failure> {
        let (events, continuation) = AsyncStream.makeStream(of: PulseEvent.self)
        let connection = PulseConnection(applicationName: "volume-guard learn") { continuation.yield($0) }
        // A connect still waiting at the deadline ends when the connection closes.
        guard case .success? = await withinDeadline(connectTimeout, { try await connection.connect(to: server) }) else {
            await connection.close()
            return .failure(.noServer)
        }
        let found = await withinDeadline(connectTimeout) { () async throws -> (ServerInfo, SinkState)? in
            let info = try await connection.serverInfo()
            guard let name = info.defaultSink, let sink = await connection.sink(.name(name)) else { return nil }
            return (info, sink)
        }
        guard case .success(let (info, sink)?)? = found else {
            await connection.close()
            return .failure(.noDefaultSink)
        }
        return .success(SinkListener(serverName: info.name, sink: sink, connection: connection, events: events))
    }

    enum Failure: Error {
        case noServer
        case noDefaultSink
    }

    /// Calls `changed` with each change of the sink's level, in the direction it went, after putting the
    /// level back; returns when the task is cancelled or the server goes away.
    func watch(_ changed: (Direction) -> Void) async {
        for await event in events {
            if Task.isCancelled { return }
            switch event {
            case .sinkChanged(let index) where index == sink.index:
                guard let now = await connection.sink(.index(index)), let direction = Self.direction(from: sink, to: now) else { continue }
                try? await connection.setSinkVolume(index: index, to: sink.volume)
                try? await connection.setSinkMute(index: index, muted: sink.muted)
                changed(direction)
            case .disconnected:
                return
            default:
                continue
            }
        }
    }

    /// Which key a change from `before` to `after` stands for; nil for none (the echo of a put-back).
    static func direction(from before: SinkState, to after: SinkState) -> Direction? {
        if after.muted != before.muted { return .mute }
        if after.volume.max > before.volume.max { return .up }
        if after.volume.max < before.volume.max { return .down }
        return nil
    }

    func close() async {
        await connection.close()
    }
}
