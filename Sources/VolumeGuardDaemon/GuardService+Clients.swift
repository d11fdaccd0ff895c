import GuardProtocol
import GuardSettings
import VolumeGuardCore

/// What clients of the control socket ask of the guard.
extension GuardService {
    /// Queues the `subscribed` reply and the presses after `since` still in the history, with their
    /// releases, then registers `queue` for live lines, all in one turn of the actor. A nil `since` means
    /// live lines only.
    func subscribe(_ queue: ClientQueue, id: RequestID?, since: UInt64?, interests: SubscriberHub.Interests) {
        hub.subscribe(queue, id: id, since: since, interests: interests, lastSeq: pipeline.lastSeq)
        subscribersChanged()
    }

    /// Each client's queue holds a whole replay and then some, so that only a client that stops reading
    /// is cut loose, never one that just resumed. A replay is every press kept, and, when the daemon
    /// takes devices, each one's release too.
    nonisolated var clientQueueCapacity: Int {
        configuration.historyCapacity * (configuration.source.takesDevices ? 2 : 1) + ClientQueue.headroom
    }

    /// Forgets `queue`; only a subscriber's leaving can pause the guard.
    func unsubscribe(_ queue: ClientQueue) {
        guard hub.unsubscribe(queue) else { return }
        subscribersChanged()
    }

    /// Applies a reloaded configuration: mode, actions and the core's settings take effect at once.
    func reload(_ new: DaemonConfiguration) {
        actions.replace(new.actions)
        pass(pipeline.reconfigure(new.gestures, at: now))
        feed(.reconfigure(new.core))
        decidePause(.mode(new.mode))
    }

    func status(id: RequestID?) -> StatusMessage {
        let guarded = core.guarded
        return StatusMessage(
            id: id,
            state: state,
            sink: guarded?.name,
            held: guarded.map { LevelMessage($0.held.volume) },
            original: guarded.map { LevelMessage($0.original.volume) },
            muted: guarded?.original.muted,
            presses: PressCountsMessage(pipeline.counts),
            lastSeq: pipeline.lastSeq,
            subscribers: hub.count,
            server: lifecycle.server,
            uptimeSeconds: (ContinuousClock.now - started) / .seconds(1),
            contested: core.isContested,
            http: httpGauge.flatMap { gauge in
                gauge.address.map { HTTPListenerMessage(address: "\($0)", clients: hub.eventStreams, connections: gauge.connections) }
            },
            source: configuration.source.rawValue,
            devices: deviceMessages,
            actions: actions.report
        )
    }

    /// Pauses or resumes guarding, in turn with everything else the core is told; returns once the guard
    /// has acted on it: a pause once the sink has been given its level back (read back), a resume once
    /// the sink is held again. Both wait for `Settling.wait` at most.
    func set(paused: Bool) async {
        decidePause(.clientPaused(paused))
        guard !lifecycle.hasEnded, !hasSettled(paused: paused) else { return }
        await withCheckedContinuation { reply in
            let waiter = settling.add(paused: paused, reply: reply)
            schedule(at: now + Settling.wait) { $0.settling.answer(waiter) }
        }
    }

    /// Whether the guard has acted on a client's pause (every sink given back) or resume (no longer
    /// looking for the sink to hold).
    func hasSettled(paused: Bool) -> Bool {
        // The devices are let go and taken again at once; the sink takes a round trip or two.
        guard configuration.source.guardsSink else { return true }
        return paused ? core.allGivenBack : core.state != .connecting
    }

    /// Tells the pause policy whether anyone is subscribed now (a subscriber cut loose during its own
    /// replay never was).
    func subscribersChanged() {
        decidePause(.subscribed(hub.count > 0))
    }

    /// Tells the pause policy `event`, and the sources what it decides, if that changed.
    func decidePause(_ event: PausePolicy.Event) {
        if let decision = policy.handle(event) { decided(decision) }
    }

    /// Pauses or resumes both sources, as the pause policy decided (`pause` or `resume`).
    func decided(_ decision: GuardEvent) {
        if configuration.source.guardsSink { feed(decision) }
        feedInput { input, now in decision == .pause ? input.pause() : input.resume(at: now) }
    }
}
