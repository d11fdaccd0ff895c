import GuardProtocol
import GuardSettings
import VolumeGuardCore

/// What clients of the control socket ask of the guard.
extension GuardService {
    /// Queues the `subscribed` reply and the presses after `since` still in the history, with their
    /// releases, then registers `queue` for live lines, all in one turn of the actor. A nil `since` means
    /// live lines only.
    func subscribe(_ queue: ClientQueue, id: RequestID?, since: UInt64?, interests: SubscriberHub.Interests) {
        hub.subscribe(queue, id: id, since: since, interests: interests, lastSeq: machine.pipeline.lastSeq)
        handle(.subscribers(hub.count))
    }

    /// Each client's queue holds a whole replay and then some, so that only a client that stops reading
    /// is cut loose, never one that just resumed. A replay is every press kept, and, when the daemon
    /// takes devices, each one's release too.
    nonisolated var clientQueueCapacity: Int {
        configuration.historyCapacity * (configuration.source.takesDevices ? 2 : 1) + ClientQueue.headroom
    }

    /// Forgets `queue`; a subscriber cut loose was forgotten already.
    func unsubscribe(_ queue: ClientQueue) {
        guard hub.unsubscribe(queue) else { return }
        handle(.subscribers(hub.count))
    }

    /// Applies a reloaded configuration: mode, actions and the core's settings take effect at once.
    func reload(_ new: DaemonConfiguration) {
        actions.replace(new.actions)
        handle(.reconfigure(new.core, new.gestureDetection, new.mode))
        reloadBroker(new)
    }

    func status(id: RequestID?) -> StatusMessage {
        let core = machine.core
        let guarded = core.guarded
        return StatusMessage(
            id: id,
            state: machine.state,
            sink: guarded?.name,
            held: guarded.map { LevelMessage($0.held.volume) },
            original: guarded.map { LevelMessage($0.original.volume) },
            muted: guarded?.original.muted,
            presses: PressCountsMessage(machine.pipeline.counts),
            lastSeq: machine.pipeline.lastSeq,
            subscribers: hub.count,
            server: machine.lifecycle.server,
            uptimeSeconds: (ContinuousClock.now - started) / .seconds(1),
            contested: core.isContested,
            http: httpGauge.flatMap { gauge in
                gauge.address.map {
                    HTTPListenerMessage(
                        address: "\($0)", clients: hub.eventStreams, connections: gauge.connections, tokens: gauge.tokensRequired,
                        paired: gauge.pairings.pairings.clients.count)
                }
            },
            source: configuration.source.rawValue,
            devices: deviceMessages,
            actions: actions.report(gestures: machine.pipeline.gestures, sources: configuration.source),
            mqtt: brokerStatus
        )
    }

    /// A paired client's press, in turn with everything else the machine is told: it reaches every
    /// subscriber and runs the actions as a remote's would. Returns its seq; nil once the guard has ended.
    func press(_ press: HTTPRequestPolicy.ClientPress, from client: String) -> UInt64? {
        let before = machine.pipeline.lastSeq
        handle(.clientPressed(direction: press.direction, key: press.key, gesture: press.gesture, client: client))
        return machine.pipeline.lastSeq == before ? nil : machine.pipeline.lastSeq
    }

    /// Pauses or resumes guarding, in turn with everything else the machine is told; returns once the
    /// guard has acted on it: a pause once the sink has been given its level back (read back), a resume
    /// once the sink is held again; or after a wait at most (the server may be gone).
    func set(paused: Bool) async {
        await settled { .clientPaused(paused, waiter: $0) }
    }

    /// Pauses (true) while the connection numbered `holder` is open, or lets its own pause go (its
    /// `resume` with `while_connected`); returns as `set(paused:)` does.
    func hold(paused: Bool, holder: Int) async {
        await settled { .pauseHeld(paused, holder: holder, waiter: $0) }
    }

    /// Ends the pause that the connection numbered `holder` held: it has closed.
    func holderLeft(_ holder: Int) {
        handle(.pauseHeld(false, holder: holder, waiter: nil))
    }

    /// Hands the machine `input`, made with a new waiter's number, and returns once that waiter is answered.
    private func settled(_ input: (Int) -> GuardMachine.Input) async {
        await withCheckedContinuation { reply in
            lastWaiter += 1
            waiters[lastWaiter] = reply
            handle(input(lastWaiter))
        }
    }
}
