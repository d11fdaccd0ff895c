/// Looking for the sink to hold, and starting to hold it.
extension GuardCore {
    /// A reading of the sink looked for; nil when there is none.
    mutating func found(_ reading: SinkState?) {
        if let reading, follower.picks(reading.name) {
            // Its restore may still be on its way, and be retried: held now, the sink would take it for
            // a press, and its original for the held level.
            guard !custodian.isGivingBack(reading.name) else {
                awaitedRelease = reading.name
                return
            }
            adopt(reading)
        } else {
            awaitDefault()
        }
    }

    /// Starts holding the sink read as `reading`.
    mutating func adopt(_ reading: SinkState) {
        let (original, recovered) = custodian.take(reading)
        if let recovered { outbox.append(.report(recovered)) }
        follower.found()
        let adopted = Guarded(reading, original: original, margin: configuration.clampMargin)
        guarded = adopted
        setState(.guarding)
        outbox.append(.report(.guarding(sink: reading.name, original: original, held: adopted.held.volume)))
        holdTarget(correcting: reading.level, attempt: 0)
    }

    /// There is no sink to hold (yet).
    mutating func awaitDefault() {
        setState(.noSink)
        ask(follower.noSink())
    }

    /// Asks the server what is needed to find a sink.
    mutating func ask(_ request: SinkFollower.Request?) {
        switch request {
        case nil: break
        case .readDefaultSink: outbox.append(.readDefaultSink)
        case .read(let query): outbox.append(.readSink(query, inFlight.read(&ids)))
        case .readAll: outbox.append(.readSinks(inFlight.read(&ids)))
        case .recheck(let delay): outbox.append(.wakeUp(after: delay))
        case .reconnect: outbox.append(.reconnect)
        }
    }
}
