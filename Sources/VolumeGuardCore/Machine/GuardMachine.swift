import GuardProtocol

/// The guard as one value: every machine the daemon's guard runs (the sink's `GuardCore`, the devices'
/// `InputSource`, the `PressPipeline` both feed, the shell's `GuardLifecycle` and `WakeUps`, the
/// `PausePolicy` and the clients `Settling`), fed one `Input` at a time, with the time, returning the
/// `Effect`s for its shell to perform.
///
/// Every input takes the same turn (GuardMachine+Turn.swift): what the machines ask of each other is
/// queued and handled in order, never re-entered, and the turn ends with one epilogue whichever machine
/// the input concerned: subscribers and systemd told of a new state, the pause policy of the subscribers
/// left, settled clients answered, and the end once every sink is given back. The shell (the daemon's
/// `GuardService`, or a simulation) performs the effects and feeds what came of them back as inputs, in
/// the order they came: it decides nothing itself.
public struct GuardMachine: Sendable {
    public struct Configuration: Hashable, Sendable {
        public var core: GuardCore.Configuration
        public var source: SourceSelection
        public var input: InputSource.Configuration
        /// When presses make gestures, and which each key looks for.
        public var gestures: GestureDetector.Configuration
        public var mode: GuardMode

        public init(
            core: GuardCore.Configuration = .init(), source: SourceSelection = .sink, input: InputSource.Configuration = .init(),
            gestures: GestureDetector.Configuration = .init(), mode: GuardMode = .always
        ) {
            self.core = core
            self.source = source
            self.input = input
            self.gestures = gestures
            self.mode = mode
        }
    }

    /// Everything that can happen to the guard.
    public enum Input: Hashable, Sendable {
        /// The shell starts.
        case start
        /// A graceful shutdown began.
        case shutdown
        /// Attempt `generation` connected to `server` (its name and version).
        case connected(generation: Int, server: String)
        /// Attempt `generation` could not connect, for `reason`.
        case connectFailed(generation: Int, reason: String)
        /// The connection of attempt `generation` was lost, for `reason`.
        case lost(generation: Int, reason: String)
        /// A server event, or a request's reply, on the connection of attempt `generation`.
        case server(GuardEvent, generation: Int)
        /// The backoff before attempt `generation` has passed.
        case retryDue(generation: Int)
        /// The shutdown's deadline passed.
        case deadlinePassed
        /// The wake-up timer set for `due` fired.
        case timerFired(due: Duration)
        /// What the input devices' nodes did, or what came of the shell's work on them (`InputSource.Event`
        /// says what each means; the machine itself feeds the source its wake-ups, pauses, resumes and
        /// shutdown).
        case device(InputSource.Event)
        /// The subscribers connected now: after one came or left, or was cut loose.
        case subscribers(Int)
        /// A client asked for a pause (true) or a resume, and waits, as `waiter`, for the guard to act on it.
        case clientPaused(Bool, waiter: Int)
        /// Connection `holder` holds a pause (true) while it is open, or lets its own go (false); `waiter`
        /// waits for the guard to act on it, nil when the connection has closed.
        case pauseHeld(Bool, holder: Int, waiter: Int?)
        /// The wait of `waiter` is over, whether or not the guard acted on its wish.
        case settleDeadline(waiter: Int)
        /// The paired client `client` pressed the volume key `direction`, or another `key`, as `gesture`.
        case clientPressed(direction: Direction?, key: UInt16?, gesture: TriggerKind, client: String)
        /// A reloaded configuration: the core's settings, the gestures' thresholds and uses, and the mode.
        case reconfigure(GuardCore.Configuration, GestureDetector.Configuration, GuardMode)
    }

    /// What the shell is to do.
    public enum Effect: Hashable, Sendable {
        /// Start attempt `generation`: make a new connection and connect it.
        case connect(generation: Int)
        /// Close the connection of the current attempt, which is over.
        case closeConnection
        /// Tell `.lost(generation:reason:)` once out of this turn: the core wants a fresh connection.
        case dropConnection(generation: Int, reason: String)
        /// Make one of the core's requests of the current connection (`readDefaultSink`, `readSink`,
        /// `readSinks`, `setVolume`, `setMute`), and tell its reply as `.server(_, generation:)`.
        case request(GuardAction, generation: Int)
        /// Record the sinks' own levels on disk, before the writes that follow.
        case recordOriginals([String: SinkLevel])
        /// Watch `/dev/input` for devices that come and go, and tell what is there now (`.scanned`).
        case watchDevices
        /// Stop watching, and close every node.
        case stopWatchingDevices
        /// Open, grab, close a node, or read its keys down; tell what came of it.
        case open(String)
        case grab(String)
        case closeNode(String)
        case readKeys(String)
        /// Send a press, a release, a gesture to the subscribers; a press to the actions too.
        case publish(Press)
        case release(Release)
        case gesture(Gesture)
        /// Tell the subscribers the guard's state and sink.
        case announce(StateMessage)
        /// Tell systemd this status line.
        case status(String)
        /// Answer the client that waits as `waiter`.
        case answer(waiter: Int)
        /// Tell `.settleDeadline(waiter:)` at `at`.
        case settleDeadline(waiter: Int, at: Duration)
        /// Tell `.timerFired(due:)` when `due` comes. A timer set earlier, for a later time, is stale.
        case setTimer(due: Duration)
        /// Tell `.retryDue(generation:)` after `after`.
        case retry(generation: Int, after: Duration)
        /// Tell `.deadlinePassed` when `deadline` comes.
        case setDeadline(Duration)
        case log(Report)
        /// The guard has ended: the shell stops once out of this turn.
        case end
    }

    /// What the log is told.
    public enum Report: Hashable, Sendable {
        case core(GuardReport)
        case input(InputReport)
        case state(GuardState)
        /// The audio server cannot be reached; `first` of a run of failed attempts.
        case unreachable(reason: String, first: Bool)
        /// The connection to the audio server was lost.
        case lost(reason: String)
        /// The core did not give every sink back before the shutdown's deadline.
        case notGivenBack
    }

    public internal(set) var core: GuardCore
    /// The input devices, with `input` or `both`; nil with `sink`.
    public internal(set) var input: InputSource?
    public internal(set) var pipeline: PressPipeline
    public internal(set) var lifecycle = GuardLifecycle()
    var wakeUps = WakeUps()
    var policy: PausePolicy
    var settling = Settling()
    let guardsSink: Bool
    /// The subscribers connected, as the shell last told.
    var subscribers = 0
    /// What the subscribers and systemd were last told.
    var announced: StateMessage?
    var statusLine: String?
    /// This turn's work: what the machines asked of each other, still to do, and the effects so far.
    var queue: [Step] = []
    var effects: [Effect] = []

    /// What one machine asks of another, within a turn.
    enum Step: Hashable, Sendable {
        case core(GuardEvent)
        case lifecycle(GuardLifecycle.Event)
        /// The pause policy decided `.pause` or `.resume`.
        case decided(GuardEvent)
    }

    /// A guard that starts from `remembered`: the levels a previous run did not give back.
    public init(configuration: Configuration, remembered: [String: SinkLevel] = [:]) {
        core = GuardCore(configuration: configuration.core, remembered: remembered)
        input = configuration.source.takesDevices ? InputSource(configuration: configuration.input) : nil
        pipeline = PressPipeline(gestures: configuration.gestures)
        policy = PausePolicy(mode: configuration.mode)
        guardsSink = configuration.source.guardsSink
    }

    /// What the guard is doing, as status replies and subscribers are told: the sink's state when it is
    /// guarded, else whether the devices are taken.
    public var state: GuardState {
        if guardsSink { return core.state }
        if lifecycle.hasEnded { return .stopped }
        switch input?.phase {
        case .stopped: return .stopped
        case .paused: return .paused
        case .taking, nil: return .guarding
        }
    }
}
