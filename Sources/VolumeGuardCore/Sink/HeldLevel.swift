/// The volume the guard holds a sink at: the user's own level, kept just off the extremes (by a margin,
/// one raw unit unless configured otherwise).
///
/// Servers emit no event when a sink is set to the value it already has, and volume keys are capped at
/// 100 % and floored at 0 %. A sink held at exactly 100 % would therefore swallow every up press, and one
/// at 0 % every down press. One raw unit inside each end is inaudible, yet any key press moves the
/// volume and is seen.
public struct HeldLevel: Hashable, Sendable {
    /// How far inside each extreme the level is kept unless configured otherwise: one raw unit.
    public static let defaultMargin: UInt32 = 1

    /// What the guard writes back after each press.
    public let volume: SinkVolume

    /// Holds `original`, scaled down (balance kept) when its loudest channel is over the ceiling
    /// (`margin` under 100 %), and with every channel raised to at least the floor (`margin`).
    public init(holding original: SinkVolume, margin: UInt32 = defaultMargin) {
        let ceiling = SinkVolume.norm - margin
        let capped = original.max > ceiling ? original.scaled(toMax: ceiling) : original
        volume = SinkVolume(channels: capped.channels.map { Swift.max($0, margin) })
    }

    /// Whether `volume` is a level the guard could hold: no channel outside the floor and ceiling.
    public static func admits(_ volume: SinkVolume, margin: UInt32 = defaultMargin) -> Bool {
        volume.channels.allSatisfy { (margin...(SinkVolume.norm - margin)).contains($0) }
    }
}
