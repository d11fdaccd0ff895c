import VolumeGuardCore

extension BrokerLink: TurnTaking {
    public mutating func handle(_ event: Event, at now: Duration) -> [Action] {
        switch event {
        case .start:
            guard state == .off else { return [] }
            return startAttempt()
        case .connected(let attempt):
            guard state == .connecting(attempt: attempt) else { return [] }
            return connected(attempt, at: now)
        case .refused(let attempt, let code, let reason):
            return failed(attempt, .refused(code: code, reason: reason), at: now)
        case .failed(let attempt, let reason, let tls):
            return failed(attempt, .failed(reason: reason, tls: tls), at: now)
        case .lost(let attempt, let reason):
            return failed(attempt, .failed(reason: reason, tls: false), at: now)
        case .acknowledged(let attempt, let message):
            switch state {
            case .connected(attempt, _):
                guard sent.remove(message) != nil else { return [] }
                queue.removeAll { $0.message == message }
                return send(attempt)
            case .stopping(attempt, _, message):
                return [.disconnect(attempt: attempt)]
            default:
                return []
            }
        case .received(let attempt, let topic, let payload):
            guard case .connected(attempt, _) = state else { return [] }
            return received(attempt, topic: topic, payload: payload, at: now)
        case .closed(let attempt):
            guard case .stopping(attempt, _, _) = state else { return [] }
            return finish()
        case .timer:
            return timer(at: now)
        case .outgoing(let brokerEvent):
            return enqueue(brokerEvent)
        case .state(let brokerState):
            guard brokerState != latestState else { return [] }
            latestState = brokerState
            guard case .connected(let attempt, _) = state else { return [] }
            return [publishState(attempt, brokerState)]
        case .stop:
            return stop(at: now)
        }
    }

    private mutating func startAttempt() -> [Action] {
        attempt += 1
        sent = []
        state = .connecting(attempt: attempt)
        return [.connect(attempt: attempt)]
    }

    private mutating func connected(_ attempt: Int, at now: Duration) -> [Action] {
        let topics = configuration.topics
        var actions: [Action] = []
        if lastError != nil || !hasConnected {
            actions.append(.report(BrokerReport(.info, "connected to the broker")))
        }
        state = .connected(attempt: attempt, since: now)
        lastError = nil
        droppedSinceConnected = 0
        actions.append(.publish(attempt: attempt, Publication(topics.availability, "online")))
        actions += configuration.removals.map { .publish(attempt: attempt, Publication($0.topic, $0.payload)) }
        if let latestState {
            actions.append(publishState(attempt, latestState))
        }
        var subscriptions: [String] = []
        if configuration.discovery {
            actions += announce(attempt)
            subscriptions.append(topics.homeAssistantStatus)
            if hasConnected {
                actions += hold(at: now)
            }
        }
        if configuration.commands {
            subscriptions.append(topics.command)
        }
        if !subscriptions.isEmpty {
            actions.append(.subscribe(attempt: attempt, topics: subscriptions))
        }
        hasConnected = true
        return actions + send(attempt)
    }

    private mutating func failed(_ attempt: Int, _ error: BrokerError, at now: Duration) -> [Action] {
        let since: Duration?
        switch state {
        case .connecting(attempt): since = nil
        case .connected(attempt, let connectedAt): since = connectedAt
        default: return []
        }
        if let since, now - since >= Self.lastingConnection {
            backoff = Self.firstBackoff
        }
        var actions: [Action] = [.close(attempt: attempt)]
        if error != lastError {
            actions.append(.report(BrokerReport(.warning, error.text, hint: error.hint)))
        }
        lastError = error
        holdUntil = nil
        // Nothing is in flight without a connection: what it left unacknowledged is sent again on the next.
        sent = []
        let due = now + backoff
        backoff = min(backoff * 2, Self.maximumBackoff)
        state = .waiting(attempt: attempt, due: due)
        return actions + [.setTimer(due)]
    }

    private mutating func received(_ attempt: Int, topic: String, payload: String, at now: Duration) -> [Action] {
        let topics = configuration.topics
        if configuration.discovery, topic == topics.homeAssistantStatus {
            switch payload {
            case "online":
                holdUntil = nil
                return announce(attempt) + send(attempt)
            case "offline": return hold(at: now)
            default: return []
            }
        }
        guard configuration.commands, topic == topics.command else { return [] }
        guard let command = Command(rawValue: payload) else {
            return [.report(BrokerReport(.warning, "ignored a command that is not pause or resume: \(payload.prefix(64))"))]
        }
        return [.command(command)]
    }

    private mutating func timer(at now: Duration) -> [Action] {
        switch state {
        case .waiting(_, let due) where now >= due:
            return startAttempt()
        case .connected(let attempt, _):
            guard let holdUntil, now >= holdUntil else { return [] }
            self.holdUntil = nil
            return send(attempt)
        case .stopping(_, let deadline, _) where now >= deadline:
            return finish()
        default:
            return []
        }
    }

    private mutating func stop(at now: Duration) -> [Action] {
        switch state {
        case .off, .waiting:
            state = .finished
            return [.finished]
        case .connecting(let attempt):
            state = .finished
            return [.close(attempt: attempt), .finished]
        case .connected(let attempt, _):
            // What waits goes out before `offline`, held or not, beyond the limit in flight: the
            // connection sends it all before its DISCONNECT.
            holdUntil = nil
            let rest = send(attempt, limit: Self.queueLimit)
            let deadline = now + Self.stopTimeout
            let offline = nextMessage
            nextMessage += 1
            state = .stopping(attempt: attempt, deadline: deadline, offline: offline)
            return rest + [
                .publish(attempt: attempt, Publication(message: offline, topic: configuration.topics.availability, payload: "offline", retain: true)),
                .setTimer(deadline),
            ]
        case .stopping, .finished:
            return []
        }
    }

    private mutating func finish() -> [Action] {
        guard case .stopping(let attempt, _, _) = state else { return [] }
        state = .finished
        return [.close(attempt: attempt), .finished]
    }

    private mutating func hold(at now: Duration) -> [Action] {
        let until = now + Self.holdLimit
        holdUntil = until
        return [.setTimer(until)]
    }

    private func announce(_ attempt: Int) -> [Action] {
        configuration.documents.map { .publish(attempt: attempt, Publication($0.topic, $0.payload)) }
    }

    private func publishState(_ attempt: Int, _ brokerState: BrokerState) -> Action {
        .publish(attempt: attempt, Publication(configuration.topics.state, brokerState.payload))
    }
}

extension BrokerLink.Publication {
    /// A retained message that awaits no acknowledgement.
    init(_ topic: String, _ payload: String) {
        self.init(message: nil, topic: topic, payload: payload, retain: true)
    }
}
