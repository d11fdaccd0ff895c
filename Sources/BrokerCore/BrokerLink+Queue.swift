extension BrokerLink {
    /// Queues `brokerEvent`, dropping the oldest beyond `queueLimit`, and sends it if it may go now.
    mutating func enqueue(_ brokerEvent: BrokerEvent) -> [Action] {
        queue.append(Queued(message: nextMessage, payload: brokerEvent.payload))
        nextMessage += 1
        var actions: [Action] = []
        if queue.count > Self.queueLimit {
            sent.remove(queue.removeFirst().message)
            dropped += 1
            droppedSinceConnected += 1
            if droppedSinceConnected == 1 {
                actions.append(.report(BrokerReport(.warning, "the broker's queue is full: the oldest presses are dropped")))
            }
        }
        guard case .connected(let attempt, _) = state else { return actions }
        return actions + send(attempt)
    }

    /// Publishes, in order, the queued messages not yet sent on this connection, up to `limit`
    /// unacknowledged; none while presses are held for Home Assistant.
    mutating func send(_ attempt: Int, limit: Int = Self.inFlightLimit) -> [Action] {
        guard holdUntil == nil else { return [] }
        var actions: [Action] = []
        for queued in queue where sent.count < limit && !sent.contains(queued.message) {
            sent.insert(queued.message)
            actions.append(
                .publish(
                    attempt: attempt,
                    Publication(message: queued.message, topic: configuration.topics.events, payload: queued.payload, retain: false)
                )
            )
        }
        return actions
    }
}
