extension GuardCore {
    /// The sink being held, and what the core knows of it: its original, the level it is held at, the
    /// echoes of the core's own writes (`EchoJudge`), and whether another client fights over it (`Contest`).
    public struct Guarded: Hashable, Sendable {
        public let index: UInt32
        public let name: String
        /// The level when guarding began: what is restored on exit, pause or a switch.
        public internal(set) var original: SinkLevel
        private(set) var echo: EchoJudge
        private var contest = Contest()
        /// Another client fought the guard: `held` is that client's level, not the original's.
        private(set) var contested = false

        /// Holds the sink read as `reading`, whose original is `original`, `margin` inside the extremes.
        init(_ reading: SinkState, original: SinkLevel, margin: UInt32) {
            index = reading.index
            name = reading.name
            self.original = original
            echo = EchoJudge(holding: HeldLevel(holding: original.volume, margin: margin), seen: reading.level)
        }

        public var held: HeldLevel { echo.held }

        /// How the server renders the held volume when read back; nil until learned.
        public var heldAsRead: SinkVolume? { echo.heldAsRead }

        /// The held level as the server will report it.
        var target: SinkLevel {
            SinkLevel(volume: heldAsRead ?? held.volume, muted: original.muted)
        }

        /// The sink reported a change.
        mutating func sinkChanged() {
            echo.sinkChanged()
        }

        /// The writes that put the sink back at its target from `level`, if it is not there; the reading
        /// after their acknowledgement verifies them (`attempt` counts the retries).
        mutating func correct(_ level: SinkLevel, attempt: Int, inFlight: inout InFlight, ids: inout RequestIDs) -> [GuardAction] {
            let target = target
            var writes: [GuardAction] = []
            if level.volume != target.volume { writes.append(.setVolume(sink: index, held.volume, inFlight.write(&ids))) }
            if level.muted != target.muted { writes.append(.setMute(sink: index, target.muted, inFlight.write(&ids))) }
            if !writes.isEmpty { echo.wrote(correcting: level, to: target, attempt: attempt) }
            return writes
        }

        /// The writes were all acknowledged at `time`.
        mutating func acknowledged(at time: Duration) {
            contest.acknowledged(at: time)
        }

        /// Judges a reading (see `EchoJudge.judge`). Mute that is not guarded passes through: it is
        /// neither a press nor put back, and the sink keeps it in the end. Like everything else, it is
        /// not taken from the reading of a skipped write.
        mutating func judge(_ level: SinkLevel, by configuration: Configuration) -> EchoJudge.Verdict {
            let verdict = echo.judge(level, by: configuration)
            if case .retry = verdict { return verdict }
            if !configuration.guardsMute {
                original.muted = level.muted
                echo.passMute(level.muted)
            }
            return verdict
        }

        /// The reading `level`, taken at `now`, has been counted (`afterReset` when it was the
        /// verification). When another client set it right after every reset, the guard holds that
        /// client's level from now on, `margin` inside the extremes, and says so.
        mutating func counted(_ level: SinkLevel, at now: Duration, afterReset: Bool, margin: UInt32) -> GuardReport? {
            defer { echo.counted(level) }
            guard level != echo.seen, contest.noteChange(to: level, at: now, afterReset: afterReset) else { return nil }
            echo.hold(HeldLevel(holding: level.volume, margin: margin))
            contested = true
            return .contested(sink: name, held: held.volume)
        }

        /// Holds the original again, `margin` inside the extremes (the configuration changed).
        mutating func rehold(margin: UInt32) {
            echo.hold(HeldLevel(holding: original.volume, margin: margin))
            contested = false
        }
    }
}
