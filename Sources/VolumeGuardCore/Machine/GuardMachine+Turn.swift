import GuardProtocol

/// One turn: an input, what the machines ask of each other because of it (queued, in order), and the
/// epilogue, until nothing is left to do.
extension GuardMachine {
    /// Takes `input`, which happened at `now` (on the guard's clock); returns what the shell is to do,
    /// in order.
    public mutating func handle(_ input: Input, at now: Duration) -> [Effect] {
        effects = []
        take(input, at: now)
        repeat {
            while !queue.isEmpty {
                run(queue.removeFirst(), at: now)
            }
            epilogue(at: now)
        } while !queue.isEmpty
        defer { effects = [] }
        return effects
    }

    private mutating func take(_ input: Input, at now: Duration) {
        switch input {
        case .start:
            guard lifecycle.state == .idle, !lifecycle.hasEnded else { return }
            if let decision = policy.decide() { queue.append(.decided(decision)) }
            if self.input != nil { effects.append(.watchDevices) }
            if guardsSink { queue.append(.lifecycle(.start)) }
        case .shutdown:
            if self.input != nil {
                feedInput(.shutdown, at: now)
                effects.append(.stopWatchingDevices)
            }
            queue.append(.lifecycle(.shutdown))
        case .connected(let generation, let server):
            queue.append(.lifecycle(.connected(generation: generation, server: server)))
        case .connectFailed(let generation, let reason):
            guard lifecycle.isCurrent(generation) else { return }
            live(.lost(generation: generation), at: now)
            effects.append(.log(.unreachable(reason: reason, first: lifecycle.failedAttempts == 1)))
        case .lost(let generation, let reason):
            guard lifecycle.isCurrent(generation) else { return }
            effects.append(.log(.lost(reason: reason)))
            queue.append(.lifecycle(.lost(generation: generation)))
        case .server(let event, let generation):
            guard lifecycle.isCurrent(generation) else { return }
            queue.append(.core(event))
        case .retryDue(let generation):
            queue.append(.lifecycle(.retryDue(generation: generation)))
        case .deadlinePassed:
            queue.append(.lifecycle(.deadlinePassed))
        case .timerFired(let due):
            guard !lifecycle.hasEnded else { return }
            let (woken, next) = wakeUps.fired(due: due, at: now)
            for machine in woken {
                switch machine {
                case .core: queue.append(.core(.wakeUp))
                case .input: feedInput(.wakeUp, at: now)
                case .pipeline: pass(pipeline.wakeUp(at: now), at: now)
                }
            }
            if let next { effects.append(.setTimer(due: next)) }
        case .device(let event):
            feedInput(event, at: now)
        case .subscribers(let count):
            subscribers = count
        case .clientPaused(let paused, let waiter):
            wish(.clientPaused(paused), paused: paused, waiter: waiter, at: now)
        case .pauseHeld(let paused, let holder, let waiter):
            wish(.held(paused, by: holder), paused: paused, waiter: waiter, at: now)
        case .settleDeadline(let waiter):
            if settling.remove(waiter) { effects.append(.answer(waiter: waiter)) }
        case .clientPressed(let direction, let key, let gesture, let client):
            // Once the guard has ended, nothing is published any more.
            guard !lifecycle.hasEnded else { return }
            pass(pipeline.clientPressed(direction, key: key, as: gesture, client: client), at: now)
        case .reconfigure(let core, let gestures, let mode):
            pass(pipeline.reconfigure(gestures, at: now), at: now)
            queue.append(.core(.reconfigure(core)))
            if let decision = policy.handle(.mode(mode)) { queue.append(.decided(decision)) }
        }
    }

    private mutating func run(_ step: Step, at now: Duration) {
        switch step {
        case .core(let event): feedCore(event, at: now)
        case .lifecycle(let event): live(event, at: now)
        case .decided(let decision):
            if guardsSink { feedCore(decision, at: now) }
            feedInput(decision == .pause ? .pause : .resume, at: now)
        }
    }

    // MARK: - The machines

    private mutating func live(_ event: GuardLifecycle.Event, at now: Duration) {
        for action in lifecycle.handle(event, at: now) {
            switch action {
            case .connect(let generation): effects.append(.connect(generation: generation))
            case .close: effects.append(.closeConnection)
            case .feed(let event): queue.append(.core(event))
            case .retry(let generation, let delay): effects.append(.retry(generation: generation, after: delay))
            case .setDeadline(let deadline): effects.append(.setDeadline(deadline))
            case .reportNotGivenBack: effects.append(.log(.notGivenBack))
            case .end: effects.append(.end)
            }
        }
    }

    private mutating func feedCore(_ event: GuardEvent, at now: Duration) {
        for action in core.handle(event, at: now) {
            switch action {
            case .readDefaultSink, .readSink, .readSinks, .setVolume, .setMute:
                guard let generation = lifecycle.link?.generation else { continue }
                effects.append(.request(action, generation: generation))
            case .reconnect:
                guard case .connected(let generation, _)? = lifecycle.link else { continue }
                effects.append(.dropConnection(generation: generation, reason: "the server names no default sink to this connection"))
            case .wakeUp(let delay): ask(.core, after: delay, at: now)
            case .recordOriginals(let originals): effects.append(.recordOriginals(originals))
            case .pressed(let direction, let count, let sink): pass(pipeline.sinkPressed(direction, count: count, sink: sink, at: now), at: now)
            case .pressesInterrupted: pass(pipeline.sinkInterrupted(at: now), at: now)
            case .stateChanged(let state): effects.append(.log(.state(state)))
            case .report(let report): effects.append(.log(.core(report)))
            }
        }
    }

    private mutating func feedInput(_ event: InputSource.Event, at now: Duration) {
        guard input != nil else { return }
        for action in input!.handle(event, at: now) {
            switch action {
            case .open(let node): effects.append(.open(node))
            case .grab(let node): effects.append(.grab(node))
            case .close(let node): effects.append(.closeNode(node))
            case .readKeys(let node): effects.append(.readKeys(node))
            case .keyDown(let key, let device): pass(pipeline.keyDown(key, on: device, at: now), at: now)
            case .keyUp(let key, let device, let cause): pass(pipeline.keyUp(key, on: device, cause: cause, at: now), at: now)
            case .wakeUp(let delay): ask(.input, after: delay, at: now)
            case .report(let report): effects.append(.log(.input(report)))
            }
        }
    }

    private mutating func pass(_ made: [PressPipeline.Action], at now: Duration) {
        for action in made {
            switch action {
            case .publish(let press): effects.append(.publish(press))
            case .release(let release): effects.append(.release(release))
            case .gesture(let gesture): effects.append(.gesture(gesture))
            case .wakeUp(let delay): ask(.pipeline, after: delay, at: now)
            }
        }
    }

    private mutating func ask(_ machine: WakeUps.Machine, after delay: Duration, at now: Duration) {
        guard !lifecycle.hasEnded, let due = wakeUps.ask(machine, after: delay, at: now) else { return }
        effects.append(.setTimer(due: due))
    }

    // MARK: - The epilogue

    /// What every turn ends with, whichever machine its input concerned.
    private mutating func epilogue(at now: Duration) {
        // The middle of a switch of sinks is not worth a line: the next sink held is.
        if !core.isBetweenSinks {
            let current = StateMessage(state: state, sink: core.guarded?.name)
            if current != announced {
                announced = current
                effects.append(.announce(current))
            }
            let line = "\(current.state.rawValue)\(current.sink.map { " \($0)" } ?? "")\(deviceTrouble)"
            if line != statusLine {
                statusLine = line
                effects.append(.status(line))
            }
        }
        if let decision = policy.handle(.subscribed(subscribers > 0)) { queue.append(.decided(decision)) }
        for waiter in settling.settled(where: hasSettled(paused:)) { effects.append(.answer(waiter: waiter)) }
        if case .stopping = lifecycle.state, core.allGivenBack { queue.append(.lifecycle(.givenBack)) }
    }

    /// Tells the policy a client's wish; `waiter`, if any, is answered once the guard has acted on it.
    private mutating func wish(_ event: PausePolicy.Event, paused: Bool, waiter: Int?, at now: Duration) {
        if let decision = policy.handle(event) { queue.append(.decided(decision)) }
        guard let waiter else { return }
        guard !lifecycle.hasEnded else { return effects.append(.answer(waiter: waiter)) }
        settling.add(waiter, paused: paused)
        effects.append(.settleDeadline(waiter: waiter, at: now + Settling.wait))
    }

    /// Whether the guard has acted on a client's pause (every sink given back) or resume (no longer
    /// looking for the sink to hold).
    private func hasSettled(paused: Bool) -> Bool {
        // The devices are let go and taken again at once; the sink takes a round trip or two.
        guard guardsSink else { return true }
        return paused ? core.allGivenBack : core.state != .connecting
    }

    /// For systemd's status line: the first device refused, with its fix.
    private var deviceTrouble: String {
        let refused = (input.map { Array($0.devices.values) } ?? []).filter { $0.refusal != nil }.sorted { $0.info.node < $1.info.node }
        guard let first = refused.first, let refusal = first.refusal else { return "" }
        let more = refused.count > 1 ? " (and \(refused.count - 1) more)" : ""
        return "; cannot take \(first.info.name) (\(first.info.node)): \(refusal.problem.error)\(more). \(refusal.problem.fix)"
    }
}
