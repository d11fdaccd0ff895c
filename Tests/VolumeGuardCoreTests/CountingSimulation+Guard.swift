@testable import VolumeGuardCore

/// The guard's shell, as GuardService is: the `GuardMachine` takes one input at a time on its
/// `MachineLoop`, its requests leave on one connection, and what comes of its effects is its next input.
/// A turn lasts the guard's work, from `guardNext` to `guardDone`.
extension CountingSimulation {
    func guardNext() {
        guard let (input, effects) = loop.beginTurn(at: { .microseconds(now) }) else { return }
        note("guard \(Self.describe(input)) -> \(effects.filter(Self.worthTracing).map(Self.describe))")
        for case .publish(let press) in effects { presses.append((now, press)) }
        post(at: now + random.int(latencies.guardWork), .guardDone(effects))
    }

    static func describe(_ input: GuardMachine.Input) -> String {
        switch input {
        case .server(.sinkRead(let ticket, let state), _): "read#\(ticket.seq) \(state.map { "\($0.volume.max)\($0.muted ? " muted" : "")" } ?? "-")"
        case .server(.sinkChanged, _): "changed"
        case .server(.written(let tag), _): "ack#\(tag.seq)"
        default: "\(input)"
        }
    }

    static func describe(_ effect: GuardMachine.Effect) -> String {
        switch effect {
        case .request(.readSink(_, let ticket), _): "read#\(ticket.seq)"
        case .request(.setVolume(_, let volume, let tag), _): "set#\(tag.seq) \(volume.max)"
        case .request(.setMute(_, let muted, let tag), _): "mute#\(tag.seq) \(muted)"
        case .publish(let press): "PRESS \(press.direction.map { "\($0)" } ?? "-") x\(press.count)"
        case .setTimer(let due): "timer at \(due)"
        default: "\(effect)"
        }
    }

    static func worthTracing(_ effect: GuardMachine.Effect) -> Bool {
        switch effect {
        case .log, .recordOriginals, .announce, .status, .gesture: false
        default: true
        }
    }

    func perform(_ effect: GuardMachine.Effect) {
        switch effect {
        case .connect(let generation):
            loop.enqueue(.connected(generation: generation, server: "\(kind)"))
        case .request(.readDefaultSink, _):
            request(.readDefault, from: Self.guardConnection)
        case .request(.readSink(_, let ticket), _):
            request(.read(ticket), from: Self.guardConnection)
        case .request(.setVolume(_, let volume, let tag), _):
            request(.write(.volume(volume.max, by: Self.guardConnection, .reset), .ack(tag)), from: Self.guardConnection)
        case .request(.setMute(_, let muted, let tag), _):
            request(.write(.mute(muted, by: Self.guardConnection), .ack(tag)), from: Self.guardConnection)
        case .setTimer(let due):
            setTimer(due)
        default:
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
        // The simulated server never goes away: its replies are the first attempt's.
        loop.enqueue(.server(event, generation: machine.lifecycle.link?.generation ?? 0))
        guardNext()
    }
}
