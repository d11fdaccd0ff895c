@testable import VolumeGuardCore

/// The guard's shell (GuardService): one event at a time, its requests on one connection, its timer the
/// one `WakeUps` keeps.
extension CountingSimulation {
    func guardNext() {
        guard !guardBusy, !guardInbox.isEmpty else { return }
        let event = guardInbox.removeFirst()
        let actions = core.handle(event, at: .microseconds(now))
        note("guard \(Self.describe(event)) -> \(actions.filter(Self.worthTracing).map(Self.describe))")
        for action in actions {
            if case .pressed(let direction, let count, let sink) = action {
                presses.append((now, Press(seq: UInt64(presses.count + 1), direction: direction, count: count, sink: sink)))
            }
        }
        guardBusy = true
        post(at: now + random.int(latencies.guardWork), .guardDone(actions))
    }

    static func describe(_ event: GuardEvent) -> String {
        switch event {
        case .sinkRead(let ticket, let state): "read#\(ticket.seq) \(state.map { "\($0.volume.max)\($0.muted ? " muted" : "")" } ?? "-")"
        case .sinkChanged: "changed"
        case .written(let tag): "ack#\(tag.seq)"
        default: "\(event)"
        }
    }

    static func describe(_ action: GuardAction) -> String {
        switch action {
        case .readSink(_, let ticket): "read#\(ticket.seq)"
        case .setVolume(_, let volume, let tag): "set#\(tag.seq) \(volume.max)"
        case .setMute(_, let muted, let tag): "mute#\(tag.seq) \(muted)"
        case .pressed(let direction, let count, _): "PRESS \(direction) x\(count)"
        case .wakeUp(let after): "wake in \(after)"
        default: "\(action)"
        }
    }

    static func worthTracing(_ action: GuardAction) -> Bool {
        switch action {
        case .stateChanged, .recordOriginals, .pressesInterrupted: false
        default: true
        }
    }

    func perform(_ action: GuardAction) {
        switch action {
        case .readDefaultSink:
            request(.readDefault, from: Self.guardConnection)
        case .readSink(_, let ticket):
            request(.read(ticket), from: Self.guardConnection)
        case .setVolume(_, let volume, let tag):
            request(.write(.volume(volume.max, by: Self.guardConnection, .reset), .ack(tag)), from: Self.guardConnection)
        case .setMute(_, let muted, let tag):
            request(.write(.mute(muted, by: Self.guardConnection), .ack(tag)), from: Self.guardConnection)
        case .wakeUp(let delay):
            setTimer(wakeUps.ask(.core, after: delay, at: .microseconds(now)))
        case .readSinks, .reconnect, .recordOriginals, .pressed, .pressesInterrupted, .stateChanged, .report:
            break
        }
    }

    func guardReceives(_ reply: Reply) {
        let event: GuardEvent =
            switch reply {
            case .defaultSink: .defaultSink(Self.sinkName)
            case .sinkRead(let ticket, let volume, let muted):
                .sinkRead(ticket!, SinkState(index: Self.sinkIndex, name: Self.sinkName, volume: SinkVolume(uniform: volume, count: 2), muted: muted))
            case .ack(let tag): .written(tag!)
            case .changed: .sinkChanged(index: Self.sinkIndex)
            }
        guardInbox.append(event)
        guardNext()
    }
}
