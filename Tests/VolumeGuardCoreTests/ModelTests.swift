import GuardProtocol
import PropertyBased
import Testing

@testable import VolumeGuardCore

/// Generated histories: a person pressing keys, the server delivering messages in any interleaving,
/// deferring acknowledgements, skipping sets and emitting events that change nothing. The simulated
/// server is the judge: what the person did is known exactly, and so is what could have been seen.
@Suite("Press fidelity under generated histories")
struct ModelTests {
    static let step: UInt32 = 3277
    static let sink = "guard_a"
    static let configured = GuardCore.Configuration(keyStep: step)
    static let starts: [UInt32] = [0, 1, 2000, 32768, 65535, 65536, 70000]

    /// One thing that happens, decoded from a generated number so that failing histories shrink.
    enum Step: CustomStringConvertible {
        /// A person presses `count` key steps at once (merged before the guard can look), capped at
        /// 100 % and floored at 0 % as desktop keys are.
        case press(Direction, count: Int)
        case toggleMute
        /// The server delivers the next `count` queued messages.
        case deliver(count: Int)
        /// The sink reports a change of something else (state, port).
        case unrelatedEvent
        /// Another sink changes.
        case otherSink
        /// The server defers (or stops deferring) acknowledgements, as pipewire-pulse does.
        case deferAcks(Bool)
        /// The server skips the next set (pipewire-pulse and its stale cache).
        case skipNextSet

        init(_ code: Int) {
            switch code {
            case 0..<20: self = .press(.up, count: code % 3 + 1)
            case 20..<40: self = .press(.down, count: code % 3 + 1)
            case 40..<48: self = .toggleMute
            case 48..<80: self = .deliver(count: code % 4 + 1)
            case 80..<86: self = .unrelatedEvent
            case 86..<90: self = .otherSink
            case 90..<96: self = .deferAcks(code.isMultiple(of: 2))
            default: self = .skipNextSet
            }
        }

        var description: String {
            switch self {
            case .press(let direction, let count): "\(direction)x\(count)"
            case .toggleMute: "mute"
            case .deliver(let count): "deliver\(count)"
            case .unrelatedEvent: "touch"
            case .otherSink: "other"
            case .deferAcks(let on): on ? "defer" : "undefer"
            case .skipNextSet: "skip"
            }
        }
    }

    /// What a history did, as the person and the server saw it.
    struct Outcome {
        var harness: Harness
        /// Key steps the person made, per direction, and how many of them the sink could show.
        var made = PressCounts()
        var visible = PressCounts()
        var counted: PressCounts { harness.counts }
    }

    static func run(_ codes: [Int], start: UInt32, settleEachPress: Bool, allow: (Step) -> Bool = { _ in true }) -> Outcome {
        var h = Harness.guarding(
            [SimulatedSink(index: 1, name: sink, [start, start]), SimulatedSink(index: 2, name: "other", [20000, 20000])],
            default: sink, configuration: configured
        )
        var outcome = Outcome(harness: h)
        for step in codes.map(Step.init) where allow(step) {
            switch step {
            case .press(let direction, let count):
                var before: UInt32 = 0
                var after: UInt32 = 0
                h.userAdjusts(sink) { sink in
                    before = sink.volume.max
                    let delta = Int64(count) * Int64(Self.step)
                    after = UInt32(min(65536, max(0, Int64(before) + (direction == .up ? delta : -delta))))
                    sink.volume = SinkVolume(uniform: after, count: sink.volume.channels.count)
                }
                outcome.made[direction] += count
                // At a capped extreme only one step can show, however many were pressed.
                if after != before {
                    outcome.visible[direction] += max(1, Int((Double(after > before ? after - before : before - after) / Double(Self.step)).rounded()))
                }
            case .toggleMute:
                h.userToggles(muteOf: sink)
                outcome.made.mute += 1
                outcome.visible.mute += 1
            case .deliver(let count):
                for _ in 0..<count { h.step() }
            case .unrelatedEvent:
                h.touch(sink)
            case .otherSink:
                h.userMoves("other", by: 1000)
            case .deferAcks(let on):
                h.holdAcks = on
                if !on { h.deliverWithheldAcks() }
            case .skipNextSet:
                h.skipWrites = 1
            }
            if settleEachPress, case .press = step { settle(&h) }
            if settleEachPress, case .toggleMute = step { settle(&h) }
        }
        settle(&h)
        outcome.harness = h
        return outcome
    }

    /// Whether the sink is at the held level, or at what the guard took for the server's rendering of it.
    /// The one case where those differ: a press lands within the echo tolerance of the held level while
    /// the reset and its confirmation are both skipped (pipewire-pulse's stale cache). Nothing can tell
    /// that from a server that renders the held level so (docs/COUNTING.md, known limits); the sink then
    /// stays a few raw units off, never more than the tolerance.
    static func isHeld(_ h: Harness, _ held: SinkVolume) -> Bool {
        let volume = h.sink(sink).volume
        guard volume != held else { return true }
        return volume == h.core.guarded?.heldAsRead && volume.isClose(to: held, tolerance: configured.echoTolerance)
    }

    /// Lets everything through until the server is quiet, and long enough for the guard to see that a
    /// burst of changes has paused.
    static func settle(_ h: inout Harness) {
        h.holdAcks = false
        h.deliverWithheldAcks()
        h.wait(PressCounter.burstQuiet * 2)
    }

    /// A program stepping the volume one way as pactl does, at machine speed: it reads the sink, and later
    /// sets what it read plus one step, while the server's messages reach the guard in any interleaving.
    /// Its reading may be one the guard has put back since. (Steps of both directions merged within one
    /// reading can cancel out; no count can be right for those.)
    static func runStepper(_ codes: [Int], start: UInt32, direction: Direction) -> Outcome {
        var h = Harness.guarding([SimulatedSink(index: 1, name: sink, [start, start])], default: sink, configuration: configured)
        h.pace = .microseconds(300)
        var outcome = Outcome(harness: h)
        var read: UInt32?
        for code in codes {
            switch code {
            case 0..<25:
                read = h.sink(sink).volume.max
            case 25..<65:
                var changed = false
                h.userAdjusts(sink) { sink in
                    let from = Int64(read ?? sink.volume.max)
                    let to = UInt32(max(0, from + (direction == .up ? 1 : -1) * Int64(Self.step)))
                    changed = to != sink.volume.max
                    sink.volume = SinkVolume(uniform: to, count: sink.volume.channels.count)
                }
                read = nil
                if changed { outcome.made[direction] += 1 }
            default:
                for _ in 0..<(code % 4 + 1) { h.step() }
            }
        }
        settle(&h)
        outcome.harness = h
        return outcome
    }

    static let histories = Gen.int(in: 0...99).array(of: 1...60)
    static let startLevels = Gen.int(in: 0...(starts.count - 1)).map { starts[$0] }

    @Test("Without a person, the guard's own writes and the server's quirks never make a press")
    func noPhantoms() async {
        await propertyCheck(count: 300, input: Self.histories, Self.startLevels) { codes, start in
            let outcome = Self.run(codes, start: start, settleEachPress: false) {
                switch $0 {
                case .press, .toggleMute: false
                default: true
                }
            }
            #expect(outcome.harness.presses.isEmpty)
        }
    }

    @Test("Every visible key step is counted exactly once when the guard may look between presses")
    func exactWhenObservable() async {
        await propertyCheck(count: 300, input: Self.histories, Self.startLevels) { codes, start in
            // An unrelated event during a skipped set is a known, documented blind spot.
            let outcome = Self.run(codes, start: start, settleEachPress: true) {
                if case .unrelatedEvent = $0 { false } else { true }
            }
            #expect(outcome.counted == outcome.visible, "made \(outcome.made)")
        }
    }

    @Test("However presses interleave with the server's messages, nothing is counted that did not happen")
    func neverExtra() async {
        await propertyCheck(count: 300, input: Self.histories, Self.startLevels) { codes, start in
            let outcome = Self.run(codes, start: start, settleEachPress: false) {
                switch $0 {
                case .unrelatedEvent, .skipNextSet: false
                default: true
                }
            }
            #expect(outcome.counted.up <= outcome.made.up)
            #expect(outcome.counted.down <= outcome.made.down)
            #expect(outcome.counted.mute <= outcome.made.mute)
        }
    }

    @Test("A program stepping from readings the guard may have put back since is never counted more than it stepped")
    func stepperNeverExtra() async {
        await propertyCheck(count: 300, input: Self.histories, Self.startLevels, Gen.bool) { codes, start, up in
            let outcome = Self.runStepper(codes, start: start, direction: up ? .up : .down)
            #expect(outcome.counted.up + outcome.counted.down <= outcome.made.up + outcome.made.down, "made \(outcome.made)")
            let held = HeldLevel(holding: SinkVolume(uniform: start, count: 2)).volume
            #expect(Self.isHeld(outcome.harness, held))
        }
    }

    @Test("A history that once ended 2 raw units off (a press near the held level, two resets skipped) ends held")
    func doubleSkipNearHeld() {
        // Found by the property below: skip, twelve steps down, six up in merged presses, deliveries between.
        // Since a burst is seen from its first reading, the guard defers the reset there and ends exactly held.
        let codes = [96, 20, 20, 20, 20, 5, 34, 0, 4, 48, 2, 63, 22, 5, 0, 51, 4, 21, 22, 4, 4, 20, 16, 96, 0, 22]
        let h = Self.run(codes, start: 32768, settleEachPress: false).harness
        #expect(Self.isHeld(h, SinkVolume(uniform: 32768, count: 2)))
    }

    @Test("Whatever happened, once the server is quiet the sink is back at the held level, and shutdown restores the original")
    func heldThenRestored() async {
        await propertyCheck(count: 300, input: Self.histories, Self.startLevels) { codes, start in
            var h = Self.run(codes, start: start, settleEachPress: false).harness
            let held = HeldLevel(holding: SinkVolume(uniform: start, count: 2)).volume
            #expect(Self.isHeld(h, held))
            #expect(h.sink(Self.sink).muted == false)
            h.feed(.shutdown)
            Self.settle(&h)
            #expect(h.sink(Self.sink).volume == SinkVolume(uniform: start, count: 2))
            #expect(h.core.allGivenBack)
        }
    }
}
