import GuardProtocol

@testable import VolumeGuardCore

// A discrete-event simulation of the guard among other clients of one audio server: a virtual clock in
// microseconds, a server that behaves like PulseAudio or like pipewire-pulse (as in
// /work/shared/FIELD-NOTES.md), the real `GuardCore` as one client with its requests' latencies, and
// generated clients that step the volume the ways programs and desktops do. Every client's set that
// changes the sink is a step *made*; the judge compares them with what the guard reports.

/// A small deterministic generator (SplitMix64): the same seed gives the same history.
struct SimRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed &+ 0x9E37_79B9_7F4A_7C15
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A whole number in `range`, each equally likely.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// True with probability `percent` in 100.
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
}

/// Which server the simulation behaves like.
enum ServerKind: String, CaseIterable, CustomStringConvertible {
    /// Commands on a connection run in order on arrival; a set's ack is sent before the change event it
    /// caused; a read sees every set before it; a set to the current value emits nothing; a change event
    /// still queued for a client absorbs the next.
    case pulseAudio
    /// pipewire-pulse: a set reaches the device 0.3–1 ms after it arrives (sets from different clients in
    /// either order), its ack waits until the server has read the device back; reads are answered at once
    /// from that read-back (the cache), so they can be stale; a set equal to the cache is skipped; the
    /// change event follows the read-back, only if the read-back differs, and is coalesced like
    /// PulseAudio's.
    case pipeWire

    var description: String { rawValue }
}

/// What one generated client does.
struct ClientPlan: CustomStringConvertible {
    enum Kind: CustomStringConvertible {
        /// Reads the sink, and after `readToSet` sets what it read plus (or minus) one step: a desktop's
        /// volume key, pulsectl, the benchmark's probe. It waits for its set's ack before the next step,
        /// or does not (it sends the next read `next` after the set).
        case readModifyWrite(Direction, waitsForAck: Bool)
        /// `pactl set-sink-volume +5%` done by the server itself: no stale reading is possible.
        case serverSide(Direction)
        /// A mixer slider: sets the levels in turn, each an absolute value.
        case absolute([UInt32])
        /// Reads the mute and sets the opposite.
        case muteToggle(waitsForAck: Bool)
        /// A desktop's volume key (mate-settings-daemon): from the level it read, a down press at or below
        /// one step sets 0 % and mutes, and above it steps down and unmutes; an up press unmutes a muted
        /// sink (from silence to one step) or steps up to 100 %. What changes it sets as two requests, the
        /// the mute first (as mate-settings-daemon, gnome-settings-daemon and cinnamon-settings-daemon
        /// do), the second `Step.secondWrite` after the first. Its key repeats at the plan's interval,
        /// never waiting for acks.
        case desktopKey(Direction)

        var description: String {
            switch self {
            case .readModifyWrite(let direction, let waits): "rmw(\(direction)\(waits ? "" : ", no ack wait"))"
            case .serverSide(let direction): "serverSide(\(direction))"
            case .absolute(let levels): "absolute(\(levels))"
            case .muteToggle(let waits): "muteToggle\(waits ? "" : "(no ack wait)")"
            case .desktopKey(let direction): "desktopKey(\(direction))"
            }
        }
    }

    /// One step's timing, in microseconds: from the read's reply to the set, and from the set's ack (or,
    /// for a client that does not wait, from sending the set) to the next step. For a client stepping
    /// at an `interval`, `next` is how late this step begins.
    struct Step: Hashable, CustomStringConvertible {
        var readToSet: Int
        var next: Int
        /// A read-modify-write step the other way than the client's direction.
        var reverse = false
        /// A desktop key's delay from its first request to its second (the process preempted between them).
        var secondWrite = 0

        var description: String { "(\(readToSet), \(next)\(reverse ? ", reverse" : "")\(secondWrite > 0 ? ", then \(secondWrite)" : ""))" }
    }

    var kind: Kind
    /// When the first step begins, in microseconds of simulated time.
    var start: Int
    var steps: [Step]
    /// Steps begin at `start + i * interval` (the probe's rate mode) instead of after the previous one.
    var interval: Int?
    /// The loudest level a read-modify-write client sets: volume keys stop at 100 %, pulsectl at
    /// 152.5 %. A step there changes nothing, so no event tells of it.
    var ceiling = SinkVolume.norm

    var description: String {
        "ClientPlan(kind: .\(kind), start: \(start), steps: \(steps.map { $0.reverse ? [$0.readToSet, $0.next, 1] : [$0.readToSet, $0.next] }), interval: \(interval.map(String.init) ?? "nil"), ceiling: \(ceiling))"
    }
}

/// The server's latencies, in microseconds (ranges a seeded generator draws from).
struct ServerLatencies {
    /// A request's or a reply's way over the socket.
    var transit: ClosedRange<Int> = 15...80
    /// PulseAudio: from a change to the moment its event leaves the server.
    var eventFlush: ClosedRange<Int> = 20...250
    /// pipewire-pulse: from a set's arrival to the device taking it.
    var apply: ClosedRange<Int> = 300...1000
    /// pipewire-pulse: from the device taking a set to the server's read-back of it (cache, event, ack).
    var readBack: ClosedRange<Int> = 80...300
    /// pipewire-pulse: the ack of a skipped set.
    var skippedAck: ClosedRange<Int> = 30...200
    /// How long the guard takes over one event before its requests leave (publishing, the log).
    var guardWork: ClosedRange<Int> = 30...250

    /// A loaded two-core machine: every hop up to a few times slower, the guard up to 2 ms per event.
    static let loaded = ServerLatencies(
        transit: 15...300, eventFlush: 20...1_000, apply: 300...3_000, readBack: 80...1_000,
        skippedAck: 30...600, guardWork: 30...2_000
    )
}

/// A generated client as it runs: its plan, where it is, and the steps it made.
final class SimulatedClient {
    let id: Int
    let plan: ClientPlan
    var next = 0
    var read: (volume: UInt32, muted: Bool)?
    var acked = 0
    /// Its sets that changed the sink, in key steps per direction (an absolute set counts the steps it
    /// moved the sink by), and its steps from its ceiling or from silence, which change nothing.
    var made = PressCounts()
    /// When it sent each set.
    var setTimes: [Int] = []
    /// Its steps that sent a request: a desktop key's press is one, whatever it sets.
    var pressesSent = 0

    init(id: Int, plan: ClientPlan) {
        self.id = id
        self.plan = plan
    }

    var waitsForAck: Bool {
        switch plan.kind {
        case .readModifyWrite(_, let waits), .muteToggle(let waits): waits
        case .serverSide, .absolute: true
        case .desktopKey: false
        }
    }

    /// The shortest time between two of its sets, in microseconds.
    var closestSets: Int? {
        zip(setTimes.dropFirst(), setTimes).map { $0 - $1 }.min()
    }
}
