import FoundationEssentials
import GuardProtocol
import Logging
import NIOCore
import PulseBridge
import VolumeGuardCore

/// Feeding the core and performing what it returns.
extension GuardService {
    /// Hands the core one event, with the time it is handled, and performs what it returns.
    func feed(_ event: GuardEvent) {
        logger.trace("event", metadata: ["event": "\(event)"])
        perform(core.handle(event, at: now))
    }

    private func perform(_ actions: [GuardAction]) {
        for action in actions {
            perform(action)
        }
        announceState()
        // A subscriber cut loose above may end the hold: told once the actions are all performed.
        subscribersChanged()
        settling.answer(where: hasSettled(paused:))
        if case .stopping = lifecycle.state, core.allGivenBack { live(.givenBack) }
    }

    private func perform(_ action: GuardAction) {
        logger.trace("action", metadata: ["action": "\(action)"])
        switch action {
        case .readDefaultSink:
            request(replying: { [logger] name in
                logger.debug("default sink", metadata: ["name": "\(name ?? "-")"])
                return .defaultSink(name)
            }) { $0.requestDefaultSink($1) }
        case .readSink(let query, let ticket):
            request(replying: { .sinkRead(ticket, $0) }) { $0.requestSink(query, $1) }
        case .readSinks(let ticket):
            request(replying: { $0.map { .sinksRead(ticket, $0) } }) { $0.requestSinks($1) }
        case .setVolume(let sink, let volume, let tag):
            request(replying: { _ in .written(tag) }) { $0.setSinkVolume(index: sink, to: volume, $1) }
        case .setMute(let sink, let muted, let tag):
            request(replying: { _ in .written(tag) }) { $0.setSinkMute(index: sink, muted: muted, $1) }
        case .reconnect:
            dropConnection(reason: "the server names no default sink to this connection")
        case .wakeUp(let delay):
            live(.wakeUpAsked(after: delay, by: .core))
        case .recordOriginals(let originals):
            // Before the writes that follow: a crash after them must find the levels they overwrite.
            do {
                try record.save(originals)
            } catch {
                logger.error("cannot record the original levels; a crash now would lose them", metadata: ["error": "\(error)"])
            }
        case .pressed(let direction, let count, let sink):
            pass(pipeline.sinkPressed(direction, count: count, sink: sink, at: now))
        case .pressesInterrupted:
            pass(pipeline.sinkInterrupted(at: now))
        case .stateChanged(let state):
            logger.info("state", metadata: ["state": "\(state.rawValue)"])
        case .report(let report):
            logger.log(report)
        }
    }

    /// Makes a request of the current connection, if there is one, with the completion `replying(event)`.
    /// It runs on the guard's mainloop, so the request is made at once.
    ///
    /// The completion is made here and handed to `ask`, so that `ask` captures only values: a closure with
    /// an `isolated PulseConnection` parameter that captures the guard (`self`, which `replying` and
    /// `logger` are reached through) crashes Swift 6.2.3, the compiler of the arm64 build (Debian's
    /// swiftlang, built with assertions): "SIL verification failed: Should only ever be isolated to a single
    /// parameter". 6.3.1 makes the same SIL, and fails the same way when told to verify it
    /// (`-Xfrontend -sil-verify-all`).
    private func request<Value>(
        replying event: @escaping @Sendable (Value) -> GuardEvent?,
        _ ask: @Sendable (isolated PulseConnection, @escaping @Sendable (Value) -> Void) -> Void
    ) {
        let reply = replying(event)
        connection?.assumeIsolated { ask($0, reply) }
    }

    /// A completion that feeds the core the reply `event` makes of a request's result (nothing, for nil).
    /// libpulse calls it on the mainloop the guard runs on, in order with the server's events. A reply
    /// of a connection lost since (a request it cancelled) is dropped: the core has forgotten what it
    /// asked of that connection.
    private nonisolated func replying<Value>(_ event: @escaping @Sendable (Value) -> GuardEvent?) -> @Sendable (Value) -> Void {
        let generation = assumeIsolated { $0.lifecycle.link?.generation }
        return { [self] value in
            guard let event = event(value) else { return }
            assumeIsolated { guardService in
                guard let generation, guardService.lifecycle.isCurrent(generation) else { return }
                guardService.feed(event)
            }
        }
    }

    /// What the guard is doing, as status replies and subscribers are told: the sink's state when it is
    /// guarded, else whether the devices are taken.
    var state: GuardState {
        if configuration.source.guardsSink { return core.state }
        if lifecycle.hasEnded || input?.isStopped == true { return .stopped }
        return input?.isPaused == true ? .paused : .guarding
    }

    /// Tells subscribers the guard's state and guarded sink when either changed, and systemd its status
    /// line (which also names a device that is refused) when that changed.
    func announceState() {
        // The middle of a switch of sinks is not worth a line: the next sink held is.
        guard core.phase != .switching else { return }
        let current = StateMessage(state: state, sink: core.guarded?.name)
        noteCutLoose(hub.announce(current).cutLoose)
        let status = "\(current.state.rawValue)\(current.sink.map { " \($0)" } ?? "")\(deviceTrouble)"
        guard status != notifiedStatus else { return }
        notifiedStatus = status
        notifier.notify("STATUS=\(status)")
    }
}
