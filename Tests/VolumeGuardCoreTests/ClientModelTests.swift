import GuardProtocol
import Testing
import VolumeGuardCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Generated clients against simulated servers, and the judge of the counting rule (docs/COUNTING.md,
/// "Counting: the rule and its proof sketch"): never more steps reported than made, per direction, by
/// any single client at any pace; exactly as many when its steps are at least 8 ms apart.
enum ClientModel {
    static let step: UInt32 = 3277
    static let held: UInt32 = 32768

    /// How a generated client behaves.
    enum Pattern: String, CaseIterable, CustomStringConvertible {
        /// Read-modify-write with random delays from its read to its set and from its ack to the next
        /// step, 0–30 ms: crossing the burst's 5 and 20 ms marks (and 8 and 10 ms) both ways, with
        /// pauses inside bursts.
        case readModifyWrite
        /// The same without waiting for its set's ack before the next read.
        case readModifyWriteNoAckWait
        /// Read-modify-write without waiting for acks, steps 0–0.3 ms apart, now and then 1–30 ms
        /// from a read to its set: on pipewire-pulse its reads lag several of its own sets behind.
        case pipelined
        /// The same with steps 0–0.06 ms apart: its reads lag further.
        case pipelinedDeep
        /// Read-modify-write with random delays, stepping either way at random.
        case readModifyWriteBothWays
        /// Two generated clients at once, each of a pattern above (not bursts or paced ones).
        case twoClients
        /// Read-modify-write whose sets are at least 8 ms apart (the next step waits 8–30 ms after the
        /// ack), with random delays from read to set: crossing the 10 and 20 ms marks both ways.
        case readModifyWriteSpaced
        /// Back to back, as the benchmark's probe and a pulsectl script step: the next read as soon as
        /// the set is acknowledged, 200 steps.
        case burst
        /// The same, now and then pausing for 1–30 ms.
        case burstWithPauses
        /// `pactl set-sink-volume +5%`, done by the server, at random gaps.
        case serverSide
        /// A mixer setting absolute levels at random gaps.
        case absolute
        /// Reads the mute and sets the opposite, at random gaps.
        case muteToggle
        /// A client stepping at a fixed rate, as the benchmark's probe does: it reads every 20, 8 or 4 ms
        /// (now and then late, as a busy machine's timers are) and sets on the reply.
        case paced50Hz, paced125Hz, paced250Hz

        var description: String { rawValue }
    }

    /// A delay drawn so that it crosses the 5, 8, 10 and 20 ms marks both ways: often short, often around
    /// them, sometimes long.
    static func delay(_ random: inout SimRandom) -> Int {
        switch random.int(0...9) {
        case 0...3: random.int(0...2_000)
        case 4...6: random.int(2_000...12_000)
        default: random.int(12_000...30_000)
        }
    }

    /// How late a paced client's timer fires: mostly on time, sometimes a few milliseconds late.
    static func lateness(_ random: inout SimRandom) -> Int {
        switch random.int(0...99) {
        case 0..<80: random.int(0...300)
        case 80..<95: random.int(300...2_000)
        default: random.int(2_000...5_000)
        }
    }

    static func plan(_ pattern: Pattern, seed: UInt64, start: Int) -> ClientPlan {
        var random = SimRandom(seed: seed ^ 0xC0FFEE)
        let direction: Direction = random.chance(50) ? .up : .down
        let count = random.int(10...40)
        func steps(_ body: (inout SimRandom) -> ClientPlan.Step) -> [ClientPlan.Step] {
            (0..<count).map { _ in body(&random) }
        }
        switch pattern {
        case .readModifyWrite, .readModifyWriteNoAckWait:
            let plan = steps { ClientPlan.Step(readToSet: delay(&$0), next: delay(&$0)) }
            return ClientPlan(kind: .readModifyWrite(direction, waitsForAck: pattern == .readModifyWrite), start: start, steps: plan)
        case .pipelined, .pipelinedDeep:
            let plan = (0..<count * 3).map { _ in
                ClientPlan.Step(
                    readToSet: random.chance(10) ? random.int(1_000...30_000) : random.int(0...300),
                    next: random.int(0...(pattern == .pipelinedDeep ? 60 : 300)))
            }
            return ClientPlan(kind: .readModifyWrite(direction, waitsForAck: false), start: start, steps: plan)
        case .readModifyWriteBothWays:
            let plan = steps { ClientPlan.Step(readToSet: delay(&$0), next: delay(&$0), reverse: $0.chance(50)) }
            return ClientPlan(kind: .readModifyWrite(direction, waitsForAck: random.chance(50)), start: start, steps: plan)
        case .twoClients:
            fatalError("two plans: see plans(_:seed:start:)")
        case .readModifyWriteSpaced:
            let plan = steps { ClientPlan.Step(readToSet: delay(&$0), next: $0.int(8_000...30_000)) }
            return ClientPlan(kind: .readModifyWrite(direction, waitsForAck: true), start: start, steps: plan)
        case .burst, .burstWithPauses:
            // C probe: 30–400 µs of work; Python: up to 1.5 ms.
            let work = random.chance(50) ? 30...400 : 200...1_500
            let plan = (0..<200).map { _ in
                ClientPlan.Step(
                    readToSet: random.int(work),
                    next: pattern == .burstWithPauses && random.chance(3) ? random.int(1_000...30_000) : random.int(work)
                )
            }
            // Up, as the benchmark steps, to a ceiling of 100 % or pulsectl's 152.5 %.
            return ClientPlan(
                kind: .readModifyWrite(.up, waitsForAck: true), start: start, steps: plan,
                ceiling: random.chance(50) ? SinkVolume.norm : 99957
            )
        case .serverSide:
            return ClientPlan(kind: .serverSide(direction), start: start, steps: steps { ClientPlan.Step(readToSet: 0, next: delay(&$0)) })
        case .absolute:
            let levels = (0..<random.int(1...3)).map { _ in UInt32(random.int(0...20)) * step / 2 + 1000 }
            return ClientPlan(kind: .absolute(levels), start: start, steps: steps { ClientPlan.Step(readToSet: 0, next: delay(&$0)) })
        case .muteToggle:
            let plan = steps { ClientPlan.Step(readToSet: delay(&$0), next: delay(&$0)) }
            return ClientPlan(kind: .muteToggle(waitsForAck: random.chance(50)), start: start, steps: plan)
        case .paced50Hz, .paced125Hz, .paced250Hz:
            let interval = pattern == .paced50Hz ? 20_000 : pattern == .paced125Hz ? 8_000 : 4_000
            let plan = (0..<200).map { _ in
                ClientPlan.Step(readToSet: random.int(30...800), next: lateness(&random))
            }
            return ClientPlan(kind: .readModifyWrite(.up, waitsForAck: false), start: start, steps: plan, interval: interval)
        }
    }

    /// The clients of a generated history: one, or two for `.twoClients`.
    static func plans(_ pattern: Pattern, seed: UInt64, start: Int) -> [ClientPlan] {
        guard pattern == .twoClients else { return [plan(pattern, seed: seed, start: start)] }
        let each: [Pattern] = [.readModifyWrite, .readModifyWriteNoAckWait, .readModifyWriteBothWays, .serverSide, .absolute, .muteToggle]
        var random = SimRandom(seed: seed ^ 0x7A1B)
        return (0..<2).map { i in
            plan(each[random.int(0...(each.count - 1))], seed: seed &* 31 &+ UInt64(i), start: start + random.int(0...5_000))
        }
    }

    /// What a run came to.
    struct Outcome: CustomStringConvertible {
        var made: PressCounts
        var counted: PressCounts
        /// Whether every client's sets were at least 8 ms apart (the pace at which counting is exact).
        var paced: Bool
        var endsHeld: Bool
        var sim: CountingSimulation

        var phantom: Bool {
            counted.up > made.up || counted.down > made.down || counted.mute > made.mute
        }

        var lost: Int { made.up + made.down + made.mute - counted.up - counted.down - counted.mute }

        /// More steps counted than made in all.
        var phantomInAll: Bool { lost < 0 }

        var description: String {
            "made \(made.up)/\(made.down)/\(made.mute), counted \(counted.up)/\(counted.down)/\(counted.mute) (up/down/mute)\(paced ? ", paced" : "")"
        }
    }

    /// Runs the guard with `plans` on a `kind` server. With `learned`, the guard learns the key step
    /// from five presses a person makes first (300 ms apart).
    static func run(
        _ kind: ServerKind, seed: UInt64, plans: [ClientPlan], learned: Bool = false, fresh: Bool = false,
        latencies: ServerLatencies = .init(), tracing: Bool = false
    ) -> Outcome {
        let sim = CountingSimulation(
            kind: kind, seed: seed, step: step, held: held, keyStep: learned || fresh ? nil : step, latencies: latencies
        )
        sim.tracing = tracing
        var warmUp = 0
        if learned {
            sim.add(
                ClientPlan(
                    kind: .serverSide(.up), start: 50_000,
                    steps: Array(repeating: ClientPlan.Step(readToSet: 0, next: 300_000), count: 5)
                ))
            warmUp = 1
        }
        for plan in plans { sim.add(plan) }
        sim.run()
        let clients = sim.clients.dropFirst(warmUp)
        return Outcome(
            made: sim.made, counted: sim.counted,
            paced: clients.allSatisfy { ($0.closestSets ?? .max) >= 8_000 },
            endsHeld: sim.volume == held && !sim.muted, sim: sim
        )
    }

    /// When a generated client starts: after the warm-up, when there is one.
    static func start(learned: Bool) -> Int { learned ? 2_000_000 : 50_000 }
}

@Suite("Counting with generated clients")
struct ClientModelTests {
    /// Runs `pattern` for each seed and hands each outcome to `judge`, naming the history in failures.
    static func judge(
        _ pattern: ClientModel.Pattern, on kind: ServerKind, seeds: Range<UInt64>, learned: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation, _ judge: (ClientModel.Outcome) -> Bool
    ) {
        for seed in seeds {
            let plans = ClientModel.plans(pattern, seed: seed, start: ClientModel.start(learned: learned))
            let outcome = ClientModel.run(kind, seed: seed, plans: plans, learned: learned)
            if !judge(outcome) {
                Issue.record("\(pattern) on \(kind), seed \(seed)\(learned ? ", learned step" : ""): \(outcome)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("steps at least 8 ms apart are counted exactly, whatever the delays from read to set", arguments: ServerKind.allCases)
    func exactWhenSpaced(kind: ServerKind) {
        Self.judge(.readModifyWriteSpaced, on: kind, seeds: 0..<30) { $0.counted == $0.made && $0.endsHeld }
        Self.judge(.readModifyWriteSpaced, on: kind, seeds: 30..<40, learned: true) { $0.counted == $0.made && $0.endsHeld }
    }

    @Test("a client stepping at 50 or 125 Hz, its timer now and then late, is counted exactly", arguments: ServerKind.allCases)
    func exactWhenPaced(kind: ServerKind) {
        Self.judge(.paced50Hz, on: kind, seeds: 0..<5) { $0.counted == $0.made && $0.endsHeld }
        Self.judge(.paced125Hz, on: kind, seeds: 0..<10) { $0.counted == $0.made && $0.endsHeld }
        Self.judge(.paced125Hz, on: kind, seeds: 10..<15, learned: true) { $0.counted == $0.made && $0.endsHeld }
    }

    @Test("no client that steps one way is counted more steps than it made, in either direction", arguments: ServerKind.allCases)
    func neverMoreThanMade(kind: ServerKind) {
        let patterns: [ClientModel.Pattern] = [
            .readModifyWrite, .readModifyWriteNoAckWait, .pipelined, .pipelinedDeep, .serverSide, .absolute,
            .muteToggle, .burstWithPauses, .paced250Hz,
        ]
        for pattern in patterns {
            Self.judge(pattern, on: kind, seeds: 100..<110) { !$0.phantom && $0.endsHeld }
        }
        Self.judge(.readModifyWrite, on: kind, seeds: 110..<115, learned: true) { !$0.phantom && $0.endsHeld }
        Self.judge(.pipelined, on: kind, seeds: 115..<120, learned: true) { !$0.phantom && $0.endsHeld }
    }

    @Test("on a loaded machine no client that steps one way is counted more steps than it made", arguments: ServerKind.allCases)
    func neverMoreThanMadeLoaded(kind: ServerKind) {
        for pattern: ClientModel.Pattern in [.readModifyWrite, .pipelined, .burst, .paced125Hz] {
            for seed in UInt64(200)..<UInt64(204) {
                let plans = ClientModel.plans(pattern, seed: seed, start: ClientModel.start(learned: false))
                let outcome = ClientModel.run(kind, seed: seed, plans: plans, latencies: .loaded)
                #expect(!outcome.phantom && outcome.endsHeld, "\(pattern) on \(kind), loaded, seed \(seed): \(outcome)")
            }
        }
    }

    @Test("a client that steps both ways is never counted more steps than it made in all", arguments: ServerKind.allCases)
    func neverMoreInAll(kind: ServerKind) {
        // Per direction no rule can hold for it: a step back from a level the guard has since put back
        // lands beyond the held level, and reads as a step the other way (CountingTests).
        Self.judge(.readModifyWriteBothWays, on: kind, seeds: 300..<320) { !$0.phantomInAll && $0.endsHeld }
    }

    /// The bound of docs/COUNTING.md, "Bursts": a step overwritten each time the burst is put back before
    /// 100 %, and readings that merge steps below the climb before count one (the largest loss in 300
    /// histories per server was 68 and 65).
    @Test(
        "a burst of 200 back-to-back steps to a client's ceiling loses at most three in eight, and counts none that was not made",
        arguments: ServerKind.allCases)
    func burstBound(kind: ServerKind) {
        Self.judge(.burst, on: kind, seeds: 0..<20) { !$0.phantom && $0.lost <= 200 * 3 / 8 && $0.endsHeld }
        Self.judge(.burst, on: kind, seeds: 20..<25, learned: true) { !$0.phantom && $0.lost <= 200 * 3 / 8 && $0.endsHeld }
    }
    @Test("exploration", .enabled(if: Environment.explore))
    func explore() {
        let env = { (name: String) in getenv(name).map { String(cString: $0) } }
        let seeds = UInt64(env("SEEDS") ?? "") ?? 200
        let modes = (env("MODES") ?? "configured,learned,fresh").split(separator: ",")
        let patterns = env("PATTERNS").map { $0.split(separator: ",").compactMap { ClientModel.Pattern(rawValue: String($0)) } } ?? ClientModel.Pattern.allCases
        for kind in ServerKind.allCases {
            for (learned, fresh) in [(false, false), (true, false), (false, true)]
            where modes.contains(learned ? "learned" : fresh ? "fresh" : "configured") {
                for pattern in patterns {
                    var phantoms = 0
                    var phantomsInAll = 0
                    var inexact = 0
                    var lost: [Int] = []
                    var first: String?
                    for seed in UInt64(0)..<seeds {
                        let plans = ClientModel.plans(pattern, seed: seed, start: ClientModel.start(learned: learned))
                        let outcome = ClientModel.run(
                            kind, seed: seed, plans: plans, learned: learned, fresh: fresh, latencies: env("LOADED") != nil ? .loaded : .init())
                        if outcome.phantom {
                            phantoms += 1
                            if first == nil { first = "seed \(seed): \(outcome)" }
                        }
                        if outcome.phantomInAll {
                            phantomsInAll += 1
                            if env("SHOWALL") != nil { print("in all: \(kind) seed \(seed) \(outcome)") }
                        }
                        if outcome.paced, outcome.lost != 0 { inexact += 1 }
                        lost.append(outcome.lost)
                    }
                    print(
                        "\(kind) \(learned ? "learned" : fresh ? "fresh" : "configured") \(pattern): phantoms \(phantoms)/\(seeds) (in all \(phantomsInAll)), paced inexact \(inexact), lost max \(lost.max()!) mean \(Double(lost.reduce(0, +)) / Double(seeds)) dist \(histogram(lost)) \(first ?? "")"
                    )
                }
            }
        }
    }
}

func histogram(_ values: [Int]) -> String {
    var counts: [Int: Int] = [:]
    for value in values { counts[value, default: 0] += 1 }
    return counts.keys.sorted().map { "\($0):\(counts[$0]!)" }.joined(separator: " ")
}

enum Environment {
    static var explore: Bool { getenv("COUNTING_EXPLORE") != nil }
}

extension ClientModel {
    /// Makes a failing history smaller: drops steps, then shortens delays, keeping what still fails.
    static func shrink(_ plans: [ClientPlan], fails: ([ClientPlan]) -> Bool) -> [ClientPlan] {
        var plans = plans
        var progress = true
        while progress {
            progress = false
            for c in plans.indices {
                var i = 0
                while i < plans[c].steps.count, plans[c].steps.count > 1 {
                    var candidate = plans
                    candidate[c].steps.remove(at: i)
                    if fails(candidate) { plans = candidate; progress = true } else { i += 1 }
                }
                for i in plans[c].steps.indices {
                    for field in 0..<2 {
                        for value in [0, 100, 1_000, 5_000, 10_000] {
                            var candidate = plans
                            let old = field == 0 ? candidate[c].steps[i].readToSet : candidate[c].steps[i].next
                            guard value < old else { continue }
                            if field == 0 { candidate[c].steps[i].readToSet = value } else { candidate[c].steps[i].next = value }
                            if fails(candidate) { plans = candidate; progress = true; break }
                        }
                    }
                }
                if plans[c].start > 50_000 || plans[c].start < 50_000 {
                    var candidate = plans
                    candidate[c].start = 50_000
                    if fails(candidate) { plans = candidate; progress = true }
                }
            }
        }
        return plans
    }
}

extension ClientModelTests {
    @Test("shrink", .enabled(if: Environment.explore))
    func shrinkOne() {
        let env = { (name: String) in getenv(name).map { String(cString: $0) } }
        guard let patternName = env("PATTERN"), let pattern = ClientModel.Pattern(rawValue: patternName),
            let kind = ServerKind(rawValue: env("KIND") ?? "pipeWire"), let seed = UInt64(env("SEED") ?? "")
        else { return }
        let learned = env("LEARNED") != nil
        let fresh = env("FRESH") != nil
        let plans = ClientModel.plans(pattern, seed: seed, start: ClientModel.start(learned: learned))
        let lost = env("FAIL") == "lost"
        let fails = { (plans: [ClientPlan]) in
            let outcome = ClientModel.run(kind, seed: seed, plans: plans, learned: learned, fresh: fresh, latencies: env("LOADED") != nil ? .loaded : .init())
            return lost ? outcome.lost > 0 : env("FAIL") == "all" ? outcome.phantomInAll : outcome.phantom
        }
        guard fails(plans) else { print("no failure"); return }
        let small = env("NOSHRINK") != nil ? plans : ClientModel.shrink(plans, fails: fails)
        let outcome = ClientModel.run(
            kind, seed: seed, plans: small, learned: learned, fresh: fresh, latencies: env("LOADED") != nil ? .loaded : .init(), tracing: true)
        print("\(kind) seed \(seed) \(small) -> \(outcome)")
        print(outcome.sim.trace.joined(separator: "\n"))
    }
}
