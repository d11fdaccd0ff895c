/// The volume the guard holds a sink at: the user's own level, kept just off the extremes.
///
/// Servers emit no event when a sink is set to the value it already has, and volume keys are capped at
/// 100 % and floored at 0 %. A sink held at exactly 100 % would therefore swallow every up press, and one
/// at 0 % every down press. One raw unit inside each end is inaudible, yet any key press moves the
/// volume and is seen.
public struct HeldLevel: Hashable, Sendable {
    /// The highest held raw value: one unit under 100 %.
    public static let ceiling: UInt32 = SinkVolume.norm - 1
    /// The lowest held raw value: one unit over silence.
    public static let floor: UInt32 = 1

    /// What the guard writes back after each press.
    public let volume: SinkVolume

    /// Holds `original`, scaled down (balance kept) when its loudest channel is over the ceiling, and
    /// with every channel raised to at least the floor.
    public init(holding original: SinkVolume) {
        let capped = original.max > Self.ceiling ? original.scaled(toMax: Self.ceiling) : original
        volume = SinkVolume(channels: capped.channels.map { Swift.max($0, Self.floor) })
    }

    /// Whether `volume` is a level the guard could hold: no channel outside the floor and ceiling.
    public static func admits(_ volume: SinkVolume) -> Bool {
        volume.channels.allSatisfy { (floor...ceiling).contains($0) }
    }
}
