import GuardProtocol

@testable import VolumeGuardCore

/// The simulated server: its requests, its register, its read-back and events.
extension CountingSimulation {
    func send(_ reply: Reply, to connection: Int) {
        let at = max(now + random.int(latencies.transit), (clientSideFree[connection] ?? 0) + 1)
        clientSideFree[connection] = at
        post(at: at, .toClient(connection, reply))
    }

    func request(_ request: Request, from connection: Int) {
        let at = max(now + random.int(latencies.transit), (serverSideFree[connection] ?? 0) + 1)
        serverSideFree[connection] = at
        post(at: at, .toServer(connection: connection, request))
    }

    func queueEvent() {
        guard !eventQueued else {
            note("event absorbed into the one queued")
            return
        }
        eventQueued = true
        post(at: now + random.int(latencies.eventFlush), .flushEvent)
    }

    func serve(_ request: Request, from connection: Int) {
        switch request {
        case .readDefault:
            send(.defaultSink, to: connection)
        case .read(let ticket):
            let reading = kind == .pulseAudio ? (volume, muted) : (cachedVolume, cachedMuted)
            note("read by \(connection): \(reading.0)\(reading.1 ? " muted" : "")")
            send(.sinkRead(ticket, volume: reading.0, muted: reading.1), to: connection)
        case .write(let write, let reply):
            switch kind {
            case .pulseAudio:
                let changed = apply(write)
                note("\(write) from \(connection)\(changed ? "" : " (no change)") -> \(volume)\(muted ? " muted" : "")")
                send(reply, to: connection)
                if changed { queueEvent() }
            case .pipeWire:
                var write = write
                if case .volumeBy(let delta, let client) = write {
                    // pipewire-pulse works out a relative set from what it knows: its read-back.
                    let to = UInt32(max(0, Int64(cachedVolume) + delta))
                    write = .volume(to, by: client, .step(delta > 0 ? .up : .down))
                }
                let skipped =
                    switch write {
                    case .volume(let value, _, _): value == cachedVolume
                    case .mute(let value, _): value == cachedMuted
                    case .volumeBy: false
                    }
                if skipped {
                    note("\(write) from \(connection) skipped: the cache has it")
                    post(at: now + random.int(latencies.skippedAck), .reply(connection, reply))
                    return
                }
                let at = max(now + random.int(latencies.apply), (lastApply[connection] ?? 0) + 1)
                lastApply[connection] = at
                post(at: at, .apply(connection: connection, write, reply))
            }
        }
    }

    /// Changes the register; true when it changed. Counts a client's step made.
    func apply(_ write: Write) -> Bool {
        switch write {
        case .volume(let value, let client, let intent):
            let old = volume
            guard value != old else { return false }
            volume = value
            if client != Self.guardConnection {
                let made: (Direction, Int) =
                    switch intent {
                    case .step(let direction): (direction, 1)
                    case .absolute, .reset:
                        (value > old ? .up : .down, max(1, Int((Double(value > old ? value - old : old - value) / Double(step)).rounded())))
                    }
                clients[client - 1].made[made.0] += made.1
            }
            return true
        case .mute(let value, let client):
            guard value != muted else { return false }
            muted = value
            if client != Self.guardConnection { clients[client - 1].made.mute += 1 }
            return true
        case .volumeBy(let delta, let client):
            return apply(.volume(UInt32(max(0, Int64(volume) + delta)), by: client, .step(delta > 0 ? .up : .down)))
        }
    }
}

extension CountingSimulation.Write: CustomStringConvertible {
    var description: String {
        switch self {
        case .volume(let value, _, let intent): "set \(value) (\(intent))"
        case .mute(let value, _): "mute \(value)"
        case .volumeBy(let delta, _): "step \(delta > 0 ? "+" : "")\(delta)"
        }
    }
}
