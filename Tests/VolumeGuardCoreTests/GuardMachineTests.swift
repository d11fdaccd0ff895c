import GuardProtocol
import Testing

@testable import VolumeGuardCore

/// A shell for the machine, as the daemon's `GuardService` is one, on the same `MachineLoop`: it performs
/// each effect and feeds what came of it back as the next inputs. Its
/// audio server is a register of one sink that answers at once, like PulseAudio (a write's
/// acknowledgement, then its change event); its devices open and grab at once; its subscribers may be cut
/// loose by the next press published.
struct MachineShell {
    let loop: MachineLoop<GuardMachine>
    var machine: GuardMachine { loop.machine }
    var now: Duration = .zero
    var sink = SinkState(index: 1, name: "guard_a", volume: SinkVolume(uniform: 32768, count: 2), muted: false)
    var devices: [InputDeviceInfo] = []
    var subscribers = 0
    /// The subscribers the next press published cuts loose, as a hub does those that stopped reading.
    var stalled = 0
    var generation = 0
    /// Every effect, in order.
    var effects: [GuardMachine.Effect] = []

    init(_ configuration: GuardMachine.Configuration, devices: [InputDeviceInfo] = []) {
        loop = MachineLoop(GuardMachine(configuration: configuration))
        self.devices = devices
    }

    mutating func handle(_ input: GuardMachine.Input) {
        let now = now
        loop.handle(input, at: { now }) { effect in
            effects.append(effect)
            return perform(effect)
        }
    }

    /// A person's key step on the sink, as the server tells it.
    mutating func personSteps(by raw: Int64) {
        sink.volume = SinkVolume(uniform: UInt32(Int64(sink.volume.max) + raw), count: 2)
        handle(.server(.sinkChanged(index: sink.index), generation: generation))
    }

    mutating func subscribe(_ count: Int) {
        subscribers = count
        handle(.subscribers(count))
    }

    private mutating func perform(_ effect: GuardMachine.Effect) -> [GuardMachine.Input] {
        switch effect {
        case .connect(let generation):
            self.generation = generation
            return [.connected(generation: generation, server: "simulated")]
        case .request(let request, let generation):
            return serve(request).map { .server($0, generation: generation) }
        case .watchDevices:
            return [.device(.scanned(devices))]
        case .open(let node):
            return devices.first { $0.node == node }.map { [.device(.opened(node, as: $0, keysDown: []))] } ?? []
        case .grab(let node):
            return [.device(.grabbed(node))]
        case .publish where stalled > 0:
            subscribers -= stalled
            stalled = 0
            return [.subscribers(subscribers)]
        default:
            return []
        }
    }

    private mutating func serve(_ request: GuardAction) -> [GuardEvent] {
        switch request {
        case .readDefaultSink: return [.defaultSink(sink.name)]
        case .readSink(_, let ticket): return [.sinkRead(ticket, sink)]
        case .readSinks(let ticket): return [.sinksRead(ticket, [sink])]
        case .setVolume(_, let volume, let tag):
            let changed = sink.volume != volume
            sink.volume = volume
            return [.written(tag)] + (changed ? [.sinkChanged(index: sink.index)] : [])
        case .setMute(_, let muted, let tag):
            let changed = sink.muted != muted
            sink.muted = muted
            return [.written(tag)] + (changed ? [.sinkChanged(index: sink.index)] : [])
        default: return []
        }
    }

    var published: [Press] {
        effects.compactMap { if case .publish(let press) = $0 { press } else { nil } }
    }
}

@Suite("The guard as one machine: every input takes one turn")
struct GuardMachineTests {
    static let remote = GuardMachine.Configuration(
        source: .input, input: .init(matches: [DeviceMatch("AB Shutter3")!]), mode: .whileSubscribed)
    static let node = Remote.consumer.node

    @Test("While subscribed: the remote is taken only while someone listens")
    func remoteWhileSubscribed() {
        var shell = MachineShell(Self.remote, devices: [Remote.consumer])
        shell.handle(.start)
        #expect(shell.machine.input?.devices[Self.node]?.state == .paused, "nobody listens: the remote is left alone")
        #expect(shell.machine.state == .paused)
        shell.subscribe(1)
        #expect(shell.machine.input?.devices[Self.node]?.state == .grabbed)
        #expect(shell.machine.state == .guarding)
        shell.subscribe(0)
        #expect(shell.machine.input?.devices[Self.node]?.state == .paused)
        #expect(shell.effects.last(where: { if case .announce = $0 { true } else { false } }) == .announce(StateMessage(state: .paused, sink: nil)))
    }

    @Test("A subscriber cut loose by a device's press lets the remote go, as one that leaves does")
    func cutLooseByADevicesPress() {
        var shell = MachineShell(Self.remote, devices: [Remote.consumer])
        shell.handle(.start)
        shell.subscribe(1)
        shell.stalled = 1
        shell.handle(.device(.key(115, value: 1, on: Self.node)))
        #expect(shell.published.count == 1)
        #expect(shell.subscribers == 0)
        #expect(shell.effects.contains(.closeNode(Self.node)), "the remote was not let go")
        #expect(shell.machine.input?.devices[Self.node]?.state == .paused)
        #expect(shell.machine.state == .paused)
    }

    @Test("A subscriber cut loose by a press on the sink gives the sink back, as one that leaves does")
    func cutLooseByASinksPress() {
        var shell = MachineShell(GuardMachine.Configuration(mode: .whileSubscribed))
        shell.handle(.start)
        #expect(shell.machine.state == .paused)
        shell.subscribe(1)
        #expect(shell.machine.state == .guarding)
        let held = shell.sink.volume
        shell.stalled = 1
        shell.personSteps(by: 3277)
        #expect(shell.published.map(\.direction) == [.up])
        #expect(shell.subscribers == 0)
        #expect(shell.machine.state == .paused)
        #expect(shell.machine.core.allGivenBack)
        #expect(shell.sink.volume == held, "the sink has its own level back")
    }

    @Test("A client's pause is answered once the sink is given back; a resume once it is held again")
    func settling() {
        var shell = MachineShell(GuardMachine.Configuration())
        shell.handle(.start)
        #expect(shell.machine.state == .guarding)
        shell.handle(.clientPaused(true, waiter: 1))
        #expect(shell.effects.contains(.answer(waiter: 1)))
        #expect(shell.machine.state == .paused)
        shell.handle(.clientPaused(false, waiter: 2))
        #expect(shell.effects.contains(.answer(waiter: 2)))
        #expect(shell.machine.state == .guarding)
        shell.handle(.settleDeadline(waiter: 2))
        #expect(shell.effects.count { $0 == .answer(waiter: 2) } == 1, "a client is answered once")
    }

    @Test("The end comes once every sink is given back; no wake-up is asked for after it")
    func end() {
        var shell = MachineShell(GuardMachine.Configuration(gestures: .init()))
        shell.handle(.start)
        shell.personSteps(by: 3277)
        shell.handle(.shutdown)
        #expect(shell.effects.last == .end)
        #expect(shell.machine.lifecycle.hasEnded)
        #expect(shell.machine.state == .stopped)
        let before = shell.effects.count
        shell.handle(.timerFired(due: .seconds(1)))
        #expect(shell.effects.count == before)
    }
}
