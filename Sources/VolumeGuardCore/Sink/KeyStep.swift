/// The size of one key step, so that a change merging several presses is counted as several.
///
/// Servers coalesce queued change events, so the guard may see +15 % where three +5 % presses happened.
/// The step is either configured or learned: the median of the last few isolated changes, seen from a
/// settled sink (the held level verified in place) with no other press for `isolation` before, and none
/// within `PressCounter.burstGap` (5 ms) after. Changes inside a burst or a key's auto-repeat may be merged, so
/// they teach nothing, and the first reading of a program's burst follows quiet too, yet may already
/// merge several steps: only the next press tells, so a change becomes a sample when it comes (a key's
/// first repeat is never that quick). A median shrugs off the odd fine-step (Shift) press; of two
/// middles it takes the smaller, as a merged change can only be larger than one step. Changes under
/// `minimumLearnable` are ignored too: at the held extremes a capped key moves the volume by one raw
/// unit, which says nothing about its step.
struct KeyStep: Hashable, Sendable {
    /// The smallest change taken as a sample of the step: 0.4 %, under a Bluetooth AVRCP step (0.8 %).
    static let minimumLearnable: UInt32 = 262
    static let window = 8
    /// How long before a press no other may have come for it to count as isolated: longer than any
    /// keyboard auto-repeat period, shorter than a person's deliberate taps.
    static let isolation: Duration = .milliseconds(200)

    let configured: UInt32?
    private var samples: [UInt32] = []
    /// The last change, when it was isolated before: a sample unless the next volume press follows at once.
    private var candidate: Candidate?

    private struct Candidate: Hashable, Sendable {
        var delta: UInt32
        var time: Duration
    }

    init(configured: UInt32? = nil) {
        self.configured = configured
    }

    /// The step in raw units, once known.
    var current: UInt32? {
        if let configured { return configured }
        guard !samples.isEmpty else { return nil }
        return samples.sorted()[(samples.count - 1) / 2]
    }

    /// How many steps a change of `delta` raw units stands for: at least one.
    func count(for delta: UInt32) -> Int {
        guard let step = current, step > 0 else { return 1 }
        return Swift.max(1, Int((Double(delta) / Double(step)).rounded()))
    }

    /// Notes a press of `delta` raw units at `time`, `isolated` when seen from a settled sink with no press
    /// for `isolation` before. Call it before counting the press: the last press becomes a sample now,
    /// unless this one follows it within a burst's gap. Mute presses are not volume presses: they
    /// neither confirm nor cancel it.
    mutating func notePress(of delta: UInt32, at time: Duration, isolated: Bool) {
        if let candidate, time - candidate.time >= PressCounter.burstGap { learn(from: candidate.delta) }
        candidate = isolated ? Candidate(delta: delta, time: time) : nil
    }

    /// Records a change known to stand alone as a sample of the step.
    mutating func learn(from delta: UInt32) {
        guard configured == nil, delta >= Self.minimumLearnable else { return }
        samples.append(delta)
        if samples.count > Self.window { samples.removeFirst() }
    }
}
