/// Tells the echo of the core's own writes from a change made to the held sink, and learns how the
/// server renders the held level.
///
/// The server's change events carry no values and no author, so the core compares each reading with
/// `seen`. A correction moves `seen` to the level its writes set, so their echo compares equal, and a
/// change made on top of them is measured from the written level, not from where the sink was before.
/// The reading after the writes are acknowledged is their *verification*: it tells whether they took,
/// and how the server renders what they wrote.
struct EchoJudge: Hashable, Sendable {
    /// How the server renders the held level when it is read back.
    enum Rendering: Hashable, Sendable {
        /// Not learned: the held level is expected to read back exactly.
        case unknown
        /// A first, inexact reading after writing the held level, waiting to be confirmed by the next.
        case candidate(SinkVolume)
        /// The held level reads back as this.
        case known(SinkVolume)
    }

    /// What to make of a reading.
    enum Verdict: Hashable, Sendable {
        /// Count it as a change from `seen`, which includes the echo of the core's writes;
        /// `verifying` when it was their verification.
        case change(verifying: Bool)
        /// The writes did not take: issue them again, as retry `attempt`. The reading is no press.
        case retry(attempt: Int)
        /// They kept not taking: the sink is left where it is, at the level now accounted for.
        case abandon
    }

    private enum State: Hashable, Sendable {
        /// No write of the core's awaits its reading.
        case idle
        /// Writes were issued correcting the reading `before`; `changedSince` once the sink reported a
        /// change after them; `attempt` counts the retries.
        case verifying(before: SinkLevel, changedSince: Bool, attempt: Int)
    }

    private(set) var held: HeldLevel
    private(set) var rendering = Rendering.unknown
    /// The level the core has accounted for: the last reading, or what its own writes set since.
    private(set) var seen: SinkLevel
    private var state = State.idle

    /// Judges readings of a sink that was read at `seen` and is to be held at `held`.
    init(holding held: HeldLevel, seen: SinkLevel) {
        self.held = held
        self.seen = seen
    }

    /// The held volume as the server reports it, once learned.
    var heldAsRead: SinkVolume? {
        if case .known(let volume) = rendering { volume } else { nil }
    }

    /// Holds another level from now on (another margin, a contest lost); its rendering is learned anew.
    mutating func hold(_ level: HeldLevel) {
        held = level
        rendering = .unknown
    }

    /// Writes were issued that set the sink from `level` to `target`: their echo is accounted for, and
    /// the reading after them will verify them.
    mutating func wrote(correcting level: SinkLevel, to target: SinkLevel, attempt: Int) {
        seen = target
        state = .verifying(before: level, changedSince: false, attempt: attempt)
    }

    /// The sink reported a change: the writes may have taken, or something else changed after them.
    mutating func sinkChanged() {
        if case .verifying(let before, _, let attempt) = state { state = .verifying(before: before, changedSince: true, attempt: attempt) }
    }

    /// Judges a reading of the sink. Only the verification can show a write skipped or teach a rendering;
    /// a skipped write teaches nothing, so a retry leaves all else as it was.
    mutating func judge(_ level: SinkLevel, by configuration: GuardCore.Configuration) -> Verdict {
        guard case .verifying(let before, let changedSince, let attempt) = state else { return .change(verifying: false) }
        state = .idle
        // The held level written again read back as the same inexact value: that is how the server
        // renders it.
        let confirmed = rendering == .candidate(level.volume)
        var accounted = seen
        if confirmed { accounted.volume = level.volume }
        if !configuration.guardsMute { accounted.muted = level.muted }
        // pipewire-pulse skips a set equal to its (stale) cached value: nothing changed at all since the
        // write, and the sink still reads as it did before it. Issue it again; it is no press.
        if !changedSince, level == before, level != accounted {
            guard attempt < configuration.resetRetries else {
                if confirmed { rendering = .known(level.volume) }
                seen = level
                return .abandon
            }
            return .retry(attempt: attempt + 1)
        }
        if confirmed {
            rendering = .known(level.volume)
            seen.volume = level.volume
        }
        // The server's rendering of the written volume may differ by a few raw units. It is learned from
        // the readings after writing the held level, and compared exactly after that, so a press landing
        // near the held level later is never taken for an echo. A reading whose volume has not moved from
        // the one corrected is no rendering of the write (it was skipped). An inexact one may also be a
        // press landing near the held level while the write was skipped: it is taken for an echo, and the
        // held level is written once more; the reading after that is the rendering.
        if heldAsRead == nil, level.volume != before.volume,
            HeldLevel.admits(level.volume, margin: configuration.clampMargin),
            level.volume.isClose(to: held.volume, tolerance: configuration.echoTolerance)
        {
            if level.volume == held.volume || rendering != .unknown {
                rendering = .known(level.volume)
            } else {
                rendering = .candidate(level.volume)
            }
            seen.volume = level.volume
        }
        return .change(verifying: true)
    }

    /// The sink's mute passes through (it is not guarded): the reading's mute is accounted for as it is.
    mutating func passMute(_ muted: Bool) {
        seen.muted = muted
    }

    /// The reading has been counted: its level is the one accounted for now.
    mutating func counted(_ level: SinkLevel) {
        seen = level
    }
}
