/// Holding a sink: each reading judged, counted and corrected; and letting it go.
extension GuardCore {
    /// A reading of the held sink, taken at `now` while `changes` change events came.
    mutating func received(_ reading: SinkState?, of held: Guarded, changes: Int, at now: Duration) -> [GuardAction] {
        guard let reading, reading.index == held.index else { return lose(held) }
        var current = held
        let level = reading.level
        switch current.judge(level, by: configuration) {
        case .retry(let attempt):
            phase = .guarding(current)
            return [.report(.resetRetried(sink: current.name, attempt: attempt))] + holdTarget(correcting: level, attempt: attempt)
        case .abandon:
            phase = .guarding(current)
            return [.report(.resetAbandoned(sink: current.name))]
        case .change(let verifying):
            let presses = counter.count(
                level, seen: current.echo.seen, target: current.target, changes: changes, afterReset: verifying, at: now
            )
            var actions = presses.map { GuardAction.pressed($0.direction, count: $0.count, sink: current.name) }
            if let report = current.counted(level, at: now, afterReset: verifying, margin: configuration.clampMargin) {
                actions.append(.report(report))
            }
            counter.read(level, holding: current.target, at: now)
            phase = .guarding(current)
            actions += checkHeldMute(at: now)
            let burst = checkBurst(at: now)
            return actions + (burst.defers ? burst.actions : holdTarget(correcting: level, attempt: 0))
        }
    }

    /// The writes that put the guarded sink back at its target, if it is not there.
    mutating func holdTarget(correcting level: SinkLevel, attempt: Int) -> [GuardAction] {
        guard case .guarding(var held) = phase else { return [] }
        let writes = held.correct(level, attempt: attempt, inFlight: &inFlight, ids: &ids)
        phase = .guarding(held)
        return writes
    }

    /// While the counter defers the reset of a burst: asks to be woken when it may have paused, or reads the sink
    /// once it has. `defers` is false when it does not defer it.
    mutating func checkBurst(at now: Duration) -> (defers: Bool, actions: [GuardAction]) {
        switch counter.checkBurst(at: now) {
        case nil: return (false, [])
        case .wait(let delay): return (true, [.wakeUp(after: delay)])
        case .paused:
            inFlight.markDue()
            return (true, readIfDue())
        }
    }

    /// While the counter holds back a press of the mute alone (perhaps the first half of a desktop's key
    /// press): asks to be woken when its wait for the other half ends, or reports it once it has.
    mutating func checkHeldMute(at now: Duration) -> [GuardAction] {
        guard let guarded else { return [] }
        switch counter.checkHeldMute(at: now) {
        case nil: return []
        case .wait(let delay): return [.wakeUp(after: delay)]
        case .released(let direction, let count): return [.pressed(direction, count: count, sink: guarded.name)]
        }
    }

    /// Reads the guarded sink when it may have changed and nothing is in flight (see `InFlight`).
    mutating func readIfDue() -> [GuardAction] {
        guard let guarded, let ticket = inFlight.readIfDue(&ids) else { return [] }
        return [.readSink(.index(guarded.index), ticket)]
    }

    // MARK: - Letting go

    /// Gives the guarded sink its original level back and stops holding it.
    mutating func giveBack() -> [GuardAction] {
        guard let guarded else { return [] }
        let restores = custodian.giveBack(guarded.index, named: guarded.name, original: guarded.original, ids: &ids)
        return dropGuarded() + restores + [.report(.givenBack(sink: guarded.name, to: guarded.original))]
    }

    /// The guarded sink went away (unplugged, module unloaded): nothing to restore now, but its original
    /// is kept for when it comes back. Look for another sink to hold.
    mutating func lose(_ lost: Guarded) -> [GuardAction] {
        custodian.remember(lost)
        return forget() + [.report(.sinkLost(sink: lost.name))] + enter(.noSink) + ask(follower.seek)
    }

    /// No sink is held any more: nothing of its writes or bursts is awaited, and the next is looked for.
    /// Returns the press the counter held back for it, due now.
    mutating func dropGuarded() -> [GuardAction] {
        var released: [GuardAction] = []
        if let press = counter.dropHeld(), let guarded { released.append(.pressed(press.direction, count: press.count, sink: guarded.name)) }
        if case .guarding = phase { phase = .switching }
        inFlight.forget()
        return released
    }

    /// No sink is held or looked for any more: no reply on its way is awaited, nor is one to adopt a sink.
    /// The caller enters the phase that follows; the press held back for the sink is due now.
    mutating func forget() -> [GuardAction] {
        let released = dropGuarded()
        follower.forget()
        return released
    }
}
