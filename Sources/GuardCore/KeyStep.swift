/// The size of one key step, so that a change merging several presses is counted as several.
///
/// Servers coalesce queued change events, so the guard may see +15 % where three +5 % presses happened.
/// The step is either configured or learned: the median of the last few isolated changes, seen from a
/// settled sink (the held level verified in place) with no other press for `isolation` before. Changes
/// inside a burst or a key's auto-repeat may be merged, so they teach nothing; a median shrugs off the
/// odd fine-step (Shift) press. Changes under `minimumLearnable` are ignored too: at the held extremes a
/// capped key moves the volume by one raw unit, which says nothing about its step.
public struct KeyStep: Hashable, Sendable {
    /// The smallest change taken as a sample of the step: 0.4 %, under a Bluetooth AVRCP step (0.8 %).
    public static let minimumLearnable: UInt32 = 262
    static let window = 8
    /// How long before a press no other may have come for it to count as isolated: longer than any
    /// keyboard auto-repeat period, shorter than a person's deliberate taps.
    public static let isolation: Duration = .milliseconds(200)

    public let configured: UInt32?
    private var samples: [UInt32] = []

    public init(configured: UInt32? = nil) {
        self.configured = configured
    }

    /// The step in raw units, once known.
    public var current: UInt32? {
        if let configured { return configured }
        guard !samples.isEmpty else { return nil }
        return samples.sorted()[samples.count / 2]
    }

    /// How many steps a change of `delta` raw units stands for: at least one.
    public func count(for delta: UInt32) -> Int {
        guard let step = current, step > 0 else { return 1 }
        return Swift.max(1, Int((Double(delta) / Double(step)).rounded()))
    }

    /// Records a change seen from a settled sink as a sample of the step.
    public mutating func learn(from delta: UInt32) {
        guard configured == nil, delta >= Self.minimumLearnable else { return }
        samples.append(delta)
        if samples.count > Self.window { samples.removeFirst() }
    }
}
