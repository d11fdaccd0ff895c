/// The one timer the guard's shell keeps for the wake-ups its machines ask for, as a value: each machine is
/// woken only when its own wake-up is due, and the timer runs for the earliest of them. Fed the asks and
/// the timer's firing, with the time, it returns when to set the timer and whom to wake.
public struct WakeUps: Hashable, Sendable {
    /// The machines that ask the shell to wake them.
    public enum Machine: Hashable, Sendable, CaseIterable {
        /// `GuardCore`: the end of a burst, a mute press held back, asking again for a default sink.
        case core
        /// `InputSource`: a refused node's retry, keys the kernel let up.
        case input
        /// `PressPipeline`: a gesture that completes in silence.
        case pipeline
    }

    /// When each machine that asked is to be woken: the earliest it asked for.
    private var due: [Machine: Duration] = [:]
    /// When the timer that runs is due: the earliest of `due`, once set.
    private var timer: Duration?

    public init() {}

    /// `machine` asks, at `now`, to be woken after `after`. Returns when to set the timer, unless one runs
    /// for that time or earlier already. A timer set earlier, for a later time, is stale from then on: its
    /// firing is ignored.
    public mutating func ask(_ machine: Machine, after: Duration, at now: Duration) -> Duration? {
        let asked = now + after
        due[machine] = min(due[machine] ?? asked, asked)
        return setIfEarlier()
    }

    /// The timer set for `due` fired at `now`: the machines whose wake-up is due, and none early, and when
    /// to set the timer next. Each machine woken asks again for what is still due later.
    public mutating func fired(due fired: Duration, at now: Duration) -> (wake: [Machine], next: Duration?) {
        guard fired == timer else { return ([], nil) }
        timer = nil
        let woken = Machine.allCases.filter { due[$0].map { $0 <= max(now, fired) } ?? false }
        for machine in woken { due[machine] = nil }
        return (woken, setIfEarlier())
    }

    private mutating func setIfEarlier() -> Duration? {
        guard let earliest = due.values.min(), timer.map({ earliest < $0 }) ?? true else { return nil }
        timer = earliest
        return earliest
    }
}
