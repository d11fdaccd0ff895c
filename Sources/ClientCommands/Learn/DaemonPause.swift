import GuardProtocol
import VolumeGuardClient

/// The running daemon as `learn` found it, and what learn did to it: paused while learn listens so that it
/// lets the remote go, and resumed after; left alone when it is paused already (by a client, or waiting for a
/// subscriber). Every request is bounded: a daemon that accepts and never answers does not hang learn.
///
/// The pause is held by a connection learn keeps open (`while_connected`): however learn ends, SIGKILL
/// included, the daemon guards again once that connection closes.
enum DaemonPause {
    /// No daemon answered.
    case absent
    /// It runs, and was paused already: left as it was.
    case leftAlone(heldDevices: Bool)
    /// learn paused it, and resumes it.
    case pausedHere(Hold, heldDevices: Bool)

    /// How long a request may take, as `doctor`'s.
    static let patience = DoctorFacts.patience

    /// Pauses the daemon at `socketPath` if one answers and guards.
    static func pause(at socketPath: String) async -> DaemonPause {
        let client = GuardClient(socketPath: socketPath)
        guard case .success(.status(let status))? = await withinDeadline(patience, { try await client.request(Request(.status)) }) else {
            return .absent
        }
        let held = status.devices?.contains { $0.state == .grabbed } ?? false
        guard status.state != .paused, let hold = await Hold(at: socketPath) else { return .leftAlone(heldDevices: held) }
        return .pausedHere(hold, heldDevices: held)
    }

    var running: Bool {
        if case .absent = self { false } else { true }
    }

    var heldDevices: Bool {
        switch self {
        case .absent: false
        case .leftAlone(let held), .pausedHere(_, let held): held
        }
    }

    func resume() async {
        guard case .pausedHere(let hold, _) = self else { return }
        if await hold.end() { return }
        printError("volume-guard: the daemon did not say it resumed; `volume-guard status` tells")
    }

    /// A connection to the daemon that holds its pause while it is open.
    final class Hold: Sendable {
        private let release: AsyncStream<Void>.Continuation
        private let connection: Task<Bool, Never>

        /// Connects to `socketPath` and pauses while connected; nil when the daemon did not say it paused
        /// within `patience` (the connection is then closed, which ends any pause it made).
        init?(at socketPath: String) async {
            let (paused, saidPaused) = AsyncStream<Bool>.makeStream()
            let (released, release) = AsyncStream<Void>.makeStream()
            connection = Task {
                let resumed = try? await GuardClient(socketPath: socketPath).withSession { session in
                    try await session.send(Request(.pause, whileConnected: true))
                    guard case .ack? = try await session.next() else { return false }
                    saidPaused.yield(true)
                    for await _ in released { break }
                    try await session.send(Request(.resume, whileConnected: true))
                    guard case .ack? = try await session.next() else { return false }
                    return true
                }
                saidPaused.finish()
                return resumed ?? false
            }
            self.release = release
            let answer = await withinDeadline(Self.patience) { await paused.first { _ in true } ?? false }
            guard case .success(true)? = answer else {
                connection.cancel()
                return nil
            }
        }

        /// Resumes the daemon (this connection's pause alone) and closes the connection; whether the daemon
        /// said it resumed within `patience`.
        func end() async -> Bool {
            release.yield()
            let connection = connection
            let resumed = await withinDeadline(Self.patience) { await connection.value }
            connection.cancel()
            guard case .success(true)? = resumed else { return false }
            return true
        }

        private static var patience: Duration { DaemonPause.patience }
    }
}
