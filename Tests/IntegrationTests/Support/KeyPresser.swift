import GuardProtocol
import PulseBridge
import TestSupport
import VolumeGuardCore

/// Presses a volume key from inside the test process, as fast as the guard takes presses: thousands
/// in seconds, where `pactl` costs a process each. A press sets the guarded sink one step above its
/// held level and then waits until the guard has put it back, since setting a sink to the volume it
/// already has is no change at all and would go unseen.
final class KeyPresser: Sendable {
    private let connection: PulseConnection
    private let sink: SinkState

    /// Connects to `server`; `sink` must be guarded already, so that its volume now is the held level.
    init(on server: AudioServer, sink name: String) async throws {
        connection = PulseConnection(applicationName: "key-presser") { _ in }
        try await connection.connect(to: server.address)
        guard let sink = await connection.sink(.name(name)) else { throw TestFailure("no sink \(name)") }
        self.sink = sink
    }

    /// One key press as a desktop's key handler makes it: the held level moved by `step`, without waiting
    /// for the guard (a held key's repeats come at their own pace).
    func tap(_ direction: Direction, by step: UInt32) async throws {
        let level = direction == .up ? sink.volume.max + step : sink.volume.max - step
        try await connection.setSinkVolume(index: sink.index, to: sink.volume.scaled(toMax: level))
    }

    /// One press up by `step` raw units; returns once the guard has put the volume back.
    func pressUp(by step: UInt32) async throws {
        try await connection.setSinkVolume(index: sink.index, to: sink.volume.scaled(toMax: sink.volume.max + step))
        let back = await eventually(every: .milliseconds(1)) { await connection.sink(.index(sink.index))?.volume == sink.volume }
        guard back else { throw TestFailure("the guard did not put \(sink.name) back to \(sink.volume)") }
    }
}
