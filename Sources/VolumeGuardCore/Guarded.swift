extension GuardCore {
    /// The sink being held.
    public struct Guarded: Hashable, Sendable {
        public let index: UInt32
        public let name: String
        /// The level when guarding began: what is restored on exit, pause or a switch.
        public internal(set) var original: SinkLevel
        /// What the core knows of its own writes to the sink, and of how the server renders them.
        var echo: EchoJudge
        /// Another client fought the guard: `held` is that client's level, not the original's.
        var contested = false

        /// Holds the sink read at `level`, whose original is `original`.
        init(_ index: UInt32, name: String, original: SinkLevel, held: HeldLevel, at level: SinkLevel) {
            self.index = index
            self.name = name
            self.original = original
            echo = EchoJudge(holding: held, seen: level)
        }

        public var held: HeldLevel { echo.held }

        /// How the server renders the held volume when read back; nil until learned.
        public var heldAsRead: SinkVolume? { echo.heldAsRead }

        /// The held level as the server will report it.
        var target: SinkLevel {
            SinkLevel(volume: heldAsRead ?? held.volume, muted: original.muted)
        }
    }
}
