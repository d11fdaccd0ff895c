extension GuardCore {
    /// How the core guards; a `reconfigure` event replaces it while running.
    public struct Configuration: Hashable, Sendable {
        public var selection: SinkSelection
        /// The key step in raw units, or nil to learn it from presses.
        public var keyStep: UInt32?
        /// How far a server's reading of the held level may stray from what was written (pipewire-pulse
        /// stores volumes as floats) and still be taken as its echo.
        public var echoTolerance: UInt32
        /// How often a reset that did not take is issued again before the guard gives up on it.
        public var resetRetries: Int
        /// Whether mute changes are presses and put back; when false they pass through, and the mute
        /// given back at the end is the sink's own at that moment.
        public var guardsMute: Bool
        /// How far inside 0 and 100 % the held level is kept, in raw units (see `HeldLevel`).
        public var clampMargin: UInt32

        public init(
            selection: SinkSelection = .defaultSink, keyStep: UInt32? = nil, echoTolerance: UInt32 = 8,
            resetRetries: Int = 3, guardsMute: Bool = true, clampMargin: UInt32 = HeldLevel.defaultMargin
        ) {
            self.selection = selection
            self.keyStep = keyStep
            self.echoTolerance = echoTolerance
            self.resetRetries = resetRetries
            self.guardsMute = guardsMute
            self.clampMargin = clampMargin
        }
    }
}
