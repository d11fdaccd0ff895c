import GuardProtocol
import Testing

@testable import VolumeGuardCore

/// A desktop's volume key held down at 0 %, against the simulated servers: each press sets the mute and
/// the volume as two requests (mate-settings-daemon, GNOME), and on a busy machine the desktop can be
/// preempted between them long enough for the guard to read the sink in between.
@Suite("A desktop's volume key at 0 %")
struct DesktopKeyTests {
    static let step = Raw.step5

    /// How long a desktop takes from its first request to its second: mostly at once, on a busy machine
    /// now and then a few milliseconds.
    static func gap(_ random: inout SimRandom) -> Int {
        switch random.int(0...9) {
        case 0...6: random.int(0...100)
        case 7...8: random.int(100...2_000)
        default: random.int(2_000...10_000)
        }
    }

    /// Holds the down key for 20 repeats, 40 ms apart (X's default rate), its timer now and then late, at a
    /// sink whose user level is 0 %, `muted` or not.
    static func holdDown(
        on kind: ServerKind, seed: UInt64, muted: Bool, latencies: ServerLatencies
    ) -> CountingSimulation {
        let sim = CountingSimulation(kind: kind, seed: seed, step: step, held: 0, keyStep: step, latencies: latencies)
        sim.muted = muted
        sim.cachedMuted = muted
        var random = SimRandom(seed: seed ^ 0xD35C)
        let steps = (0..<20).map { _ in
            ClientPlan.Step(readToSet: random.int(30...300), next: ClientModel.lateness(&random), secondWrite: gap(&random))
        }
        sim.add(ClientPlan(kind: .desktopKey(.down), start: 50_000, steps: steps, interval: 40_000))
        sim.run()
        return sim
    }

    /// Holds the down key on a `kind` server for each seed, the user's
    /// level unmuted and muted, and hands each run to `judge`, naming it in failures.
    static func judge(on kind: ServerKind, latencies: ServerLatencies, seeds: Range<UInt64>, _ judge: (CountingSimulation, Bool) -> Bool) {
        for seed in seeds {
            for muted in [false, true] {
                let sim = Self.holdDown(on: kind, seed: seed, muted: muted, latencies: latencies)
                if !judge(sim, muted) {
                    Issue.record(
                        "seed \(seed)\(muted ? ", muted" : ""): \(sim.counted) for \(sim.clients[0].pressesSent) presses, left at \(sim.volume)\(sim.muted ? " muted" : "")"
                    )
                }
            }
        }
    }

    @Test("each press of a down key held at 0 % is one down press, its mute and volume read together or apart, loaded or not", arguments: ServerKind.allCases)
    func oneDownPressEach(kind: ServerKind) {
        for latencies in [ServerLatencies(), .loaded] {
            Self.judge(on: kind, latencies: latencies, seeds: 0..<10) { sim, muted in
                // A key press is one press, whatever it sets, and the key is the down key: never a mute.
                sim.counted.down == sim.clients[0].pressesSent && sim.counted.up == 0 && sim.counted.mute == 0
                    && sim.volume == 1 && sim.muted == muted
            }
        }
    }
}
