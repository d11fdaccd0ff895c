/// Holding a sink: each reading judged, counted and corrected; and letting it go.
extension GuardCore {
    /// A reading of the held sink, taken while `changes` change events came.
    mutating func received(_ reading: SinkState?, of held: Guarded, changes: Int) {
        guard let reading, reading.index == held.index else { return lose(held) }
        var current = held
        let level = reading.level
        switch current.judge(level, by: configuration) {
        case .retry(let attempt):
            guarded = current
            outbox.append(.report(.resetRetried(sink: current.name, attempt: attempt)))
            holdTarget(correcting: level, attempt: attempt)
        case .abandon:
            guarded = current
            outbox.append(.report(.resetAbandoned(sink: current.name)))
        case .change(let verifying):
            if let press = counter.count(
                level, seen: current.echo.seen, target: current.target, changes: changes, afterReset: verifying,
                on: current.name, at: now
            ) {
                outbox.append(.publish(press))
                tell(gestures.press(press, at: now))
            }
            if let report = current.counted(level, at: now, afterReset: verifying, margin: configuration.clampMargin) {
                outbox.append(.report(report))
            }
            counter.read(level, holding: current.target, at: now)
            guarded = current
            if !checkBurst() { holdTarget(correcting: level, attempt: 0) }
        }
    }

    /// Issues the writes that put the guarded sink back at its target, if it is not there.
    mutating func holdTarget(correcting level: SinkLevel, attempt: Int) {
        let writes = guarded?.correct(level, attempt: attempt, inFlight: &inFlight, ids: &ids)
        outbox += writes ?? []
    }

    /// While the counter holds back a burst: asks to be woken when it may have paused, or reads the sink
    /// once it has. False when it does not hold back.
    @discardableResult
    mutating func checkBurst() -> Bool {
        switch counter.checkBurst(at: now) {
        case nil: return false
        case .wait(let delay): outbox.append(.wakeUp(after: delay))
        case .paused:
            inFlight.markDue()
            readIfDue()
        }
        return true
    }

    /// Reads the guarded sink when it may have changed and nothing is in flight (see `InFlight`).
    mutating func readIfDue() {
        guard let guarded, let ticket = inFlight.readIfDue(&ids) else { return }
        outbox.append(.readSink(.index(guarded.index), ticket))
    }

    /// Sends the gestures found, and asks to be woken when the detector wants to look again.
    mutating func tell(_ found: (gestures: [Gesture], wakeUp: Duration?)) {
        outbox += found.gestures.map(GuardAction.gesture)
        if let next = found.wakeUp { outbox.append(.wakeUp(after: next)) }
    }

    // MARK: - Letting go

    /// Gives the guarded sink its original level back and stops holding it.
    mutating func release() {
        guard let guarded else { return }
        outbox += custodian.giveBack(guarded.index, named: guarded.name, original: guarded.original, ids: &ids)
        outbox.append(.report(.released(sink: guarded.name, to: guarded.original)))
        dropGuarded()
    }

    /// The guarded sink went away (unplugged, module unloaded): nothing to restore now, but its original
    /// is kept for when it comes back. Look for another sink to hold.
    mutating func lose(_ lost: Guarded) {
        outbox.append(.report(.sinkLost(sink: lost.name)))
        custodian.remember(lost)
        forget()
        setState(.noSink)
        ask(follower.seek)
    }

    /// No sink is held any more: nothing of its writes or bursts is awaited.
    mutating func dropGuarded() {
        guarded = nil
        inFlight.forget()
        counter.dropHeld()
    }

    /// No sink is held or looked for any more: no reply on its way is awaited, nor is one to adopt a sink.
    mutating func forget() {
        dropGuarded()
        follower.forget()
        awaitedRelease = nil
    }
}
