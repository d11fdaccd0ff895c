/// Looking for the sink to hold, and starting to hold it.
extension GuardCore {
    /// A reading of the sink looked for; nil when there is none.
    mutating func found(_ reading: SinkState?) -> [GuardAction] {
        guard let reading, follower.picks(reading.name) else { return awaitDefault() }
        guard !custodian.isGivingBack(reading.name) else { return enter(.awaitingGiveBack(sink: reading.name)) }
        return adopt(reading)
    }

    /// Starts holding the sink read as `reading`.
    mutating func adopt(_ reading: SinkState) -> [GuardAction] {
        let (original, recovered) = custodian.take(reading)
        follower.found()
        let adopted = Guarded(reading, original: original, margin: configuration.clampMargin)
        return (recovered.map { [.report($0)] } ?? []) + enter(.guarding(adopted))
            + [.report(.guarding(sink: reading.name, original: original, held: adopted.held.volume))]
            + holdTarget(correcting: reading.level, attempt: 0)
    }

    /// There is no sink to hold (yet).
    mutating func awaitDefault() -> [GuardAction] {
        enter(.noSink) + ask(follower.noSink())
    }

    /// Asks the server what is needed to find a sink.
    mutating func ask(_ request: SinkFollower.Request?) -> [GuardAction] {
        switch request {
        case nil: []
        case .readDefaultSink: [.readDefaultSink]
        case .read(let query): [.readSink(query, inFlight.read(&ids))]
        case .readAll: [.readSinks(inFlight.read(&ids))]
        case .recheck(let delay): [.wakeUp(after: delay)]
        case .reconnect: [.reconnect]
        }
    }
}
