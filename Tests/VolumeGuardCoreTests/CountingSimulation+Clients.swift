import GuardProtocol

@testable import VolumeGuardCore

/// The generated clients.
extension CountingSimulation {
    func clientStep(_ id: Int) {
        let client = clients[id - 1]
        guard client.next < client.plan.steps.count else { return }
        switch client.plan.kind {
        case .readModifyWrite, .muteToggle, .desktopKey:
            request(.read(nil), from: id)
        case .serverSide(let direction):
            clientSends(id, .volumeBy(direction == .up ? Int64(step) : -Int64(step), by: id))
        case .absolute(let levels):
            clientSends(id, .volume(levels[client.next % levels.count], by: id, .absolute))
        }
    }

    func clientReceives(_ id: Int, _ reply: Reply) {
        let client = clients[id - 1]
        switch reply {
        case .sinkRead(_, let volume, let muted):
            client.read = (volume, muted)
            post(at: now + client.plan.steps[client.next].readToSet, .clientSet(id))
        case .ack:
            client.acked += 1
            if client.waitsForAck, client.plan.interval == nil { scheduleNextStep(id) }
        case .defaultSink, .changed:
            break
        }
    }

    func clientSet(_ id: Int) {
        let client = clients[id - 1]
        guard let read = client.read else { return }
        client.read = nil
        switch client.plan.kind {
        case .readModifyWrite(let forward, _):
            let direction = client.plan.steps[client.next].reverse ? (forward == .up ? Direction.down : .up) : forward
            let to = direction == .up ? max(read.volume, min(read.volume + step, client.plan.ceiling)) : (read.volume > step ? read.volume - step : 0)
            // A step from the client's ceiling, or from silence, is a press made that moves nothing.
            if to == read.volume { client.made[direction] += 1 }
            clientSends(id, .volume(to, by: id, .step(direction)))
        case .muteToggle:
            clientSends(id, .mute(!read.muted, by: id))
        case .desktopKey(let direction):
            let writes = desktopKeyWrites(direction, from: read, by: id)
            guard let first = writes.first else {
                // The key changes nothing from what the desktop read (muted at 0 %): no request, no event.
                scheduleNextStep(id)
                return
            }
            client.pressesSent += 1
            if let second = writes.dropFirst().first { post(at: now + client.plan.steps[client.next].secondWrite, .clientWrite(id, second)) }
            clientSends(id, first)
        case .serverSide, .absolute:
            break
        }
    }

    /// What a desktop's volume (or mute) key sets from the level `read`, as mate-settings-daemon does, mute first.
    func desktopKeyWrites(_ direction: Direction, from read: (volume: UInt32, muted: Bool), by id: Int) -> [Write] {
        var volume = read.volume
        var muted = read.muted
        switch direction {
        case .down where read.volume <= step:
            volume = 0
            muted = true
        case .down:
            volume -= step
            muted = false
        case .up where read.muted:
            muted = false
            if volume == 0 { volume = step }
        case .up:
            volume = min(read.volume + step, SinkVolume.norm)
        case .mute:
            muted.toggle()
        }
        return (muted != read.muted ? [.mute(muted, by: id)] : []) + (volume != read.volume ? [.volume(volume, by: id, .step(direction))] : [])
    }

    func clientSends(_ id: Int, _ write: Write) {
        let client = clients[id - 1]
        client.setTimes.append(now)
        note("client \(id) sends \(write)")
        request(.write(write, .ack(nil)), from: id)
        if !client.waitsForAck || client.plan.interval != nil { scheduleNextStep(id) }
    }

    func scheduleNextStep(_ id: Int) {
        let client = clients[id - 1]
        let wait = client.plan.steps[client.next].next
        client.next += 1
        guard client.next < client.plan.steps.count else { return }
        if let interval = client.plan.interval {
            post(at: max(now, client.plan.start + client.next * interval + client.plan.steps[client.next].next), .clientStep(id))
        } else {
            post(at: now + wait, .clientStep(id))
        }
    }
}
