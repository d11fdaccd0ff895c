import GuardProtocol
import GuardSettings
import VolumeGuardCore

extension ActionRunner {
    /// The runner's decisions as a value: fed triggers (presses and gestures) and the ends of runs, with the
    /// time, it says which actions start and why the others do not, and keeps what each action did last for
    /// status replies.
    ///
    /// A trigger never waits for an action: one that is still running, started less than its cooldown ago,
    /// or would exceed `limit` running actions is dropped for that trigger, so a held key or a bouncing
    /// remote cannot pile up work, and one press takes one photo.
    struct StateMachine {
        /// How a run ended.
        enum Outcome: Hashable, Sendable {
            case exited(Int32)
            case signaled(Int32)
            case timedOut
            /// It could not be started; the text says why.
            case failed(String)
        }

        /// Why a trigger did not start an action.
        enum Drop: Hashable, Sendable {
            /// It was still running (the camera still taking the last photo).
            case running
            /// It started less than its cooldown ago, and may start again after `remaining`.
            case coolingDown(remaining: Duration)
            /// `limit` actions were running already.
            case overLimit
        }

        enum Decision: Hashable, Sendable {
            /// Start `action`, and tell `ended` of its end as `identity`'s.
            case start(Action, as: Identity)
            case drop(Action, Drop)
        }

        /// Which configured action a record is, across reloads: its name, and which of the actions of that
        /// name it is (0 for the first). A reload that edits an action's other keys (its timeout, its
        /// command) keeps its record, so that a run going on is still running and its cooldown goes on;
        /// two tables alike are two actions, each with a record of its own.
        struct Identity: Hashable, Sendable {
            var name: String
            var index: Int
        }

        /// One start of an action: the seq of its trigger's press, the wall-clock time for status, the instant
        /// for the cooldown.
        struct Run: Hashable, Sendable {
            var seq: UInt64
            var time: String
            var started: ContinuousClock.Instant
        }

        /// A run that ended, and how long it took.
        struct Ended: Hashable, Sendable {
            var run: Run
            var outcome: Outcome
            var took: Duration
        }

        /// What an action is doing: nothing since its last run, if any, or running. A run the daemon's
        /// shutdown stopped stays running: nothing asks after it.
        enum Life: Hashable, Sendable {
            case idle(last: Ended?)
            case running(Run)
        }

        /// One action's life and counts.
        struct Record: Hashable, Sendable {
            var life = Life.idle(last: nil)
            var runs = 0
            var dropped = 0

            var isRunning: Bool {
                if case .running = life { return true }
                return false
            }
        }

        let limit: Int
        private(set) var actions: [Action]
        /// Each action's identity, in the same order.
        private var identities: [Identity]
        /// Every configured action's record, and those of actions a reload removed while they ran, which
        /// still count against the limit until they end.
        private var records: [Identity: Record] = [:]

        init(actions: [Action], limit: Int) {
            self.actions = actions
            self.identities = Self.identities(of: actions)
            self.limit = limit
        }

        private static func identities(of actions: [Action]) -> [Identity] {
            var seen: [String: Int] = [:]
            return actions.map { action in
                defer { seen[action.name, default: 0] += 1 }
                return Identity(name: action.name, index: seen[action.name] ?? 0)
            }
        }

        /// Takes a new list of actions (a reload). An action that stays, by its identity, keeps its record;
        /// one removed while running is forgotten once it ends.
        mutating func replace(_ new: [Action]) {
            actions = new
            identities = Self.identities(of: new)
            records = records.filter { identities.contains($0.key) || $0.value.isRunning }
        }

        /// The actions `trigger` calls for, in the configured order: each started, or dropped and why.
        mutating func trigger(_ trigger: Trigger, time: String, at now: ContinuousClock.Instant) -> [Decision] {
            zip(identities, actions).filter { $0.1.runs(on: trigger) }.map { identity, action in
                var record = records[identity] ?? Record()
                defer { records[identity] = record }
                switch record.life {
                case .running:
                    record.dropped += 1
                    return .drop(action, .running)
                case .idle(let last?) where now < last.run.started + action.cooldown:
                    record.dropped += 1
                    return .drop(action, .coolingDown(remaining: last.run.started + action.cooldown - now))
                case .idle:
                    guard running < limit else {
                        record.dropped += 1
                        return .drop(action, .overLimit)
                    }
                    record.runs += 1
                    record.life = .running(Run(seq: trigger.seq, time: time, started: now))
                    return .start(action, as: identity)
                }
            }
        }

        /// The run of the action `identity` ended as `outcome`.
        mutating func ended(_ identity: Identity, _ outcome: Outcome, at now: ContinuousClock.Instant) {
            guard case .running(let run) = records[identity]?.life else { return }
            if identities.contains(identity) {
                records[identity]?.life = .idle(last: Ended(run: run, outcome: outcome, took: now - run.started))
            } else {
                records[identity] = nil
            }
        }

        /// How many actions run now.
        var running: Int { records.values.count(where: \.isRunning) }

        /// The configured actions, as a status reply reports them, with the delay of those on taps as
        /// `gestures` make it, from each of `sources` they hear.
        func report(gestures: GestureDetector.Configuration, sources: SourceSelection) -> [ActionMessage] {
            zip(identities, actions).map { identity, action in
                let record = records[identity] ?? Record()
                return ActionMessage(
                    name: action.name, gesture: action.gesture == .press ? nil : action.gesture,
                    tapDelay: action.gesture == .tap ? Self.tapDelay(of: action, gestures: gestures, sources: sources) : nil,
                    runs: record.runs, dropped: record.dropped, last: Self.message(record.life))
            }
        }

        /// How long a tap of `action`'s keys waits, at the longest, from each source it hears: for what
        /// the actions on those keys look for.
        private static func tapDelay(of action: Action, gestures: GestureDetector.Configuration, sources: SourceSelection) -> TapDelayMessage {
            let lookedFor = gestures.uses.lookedFor(overlapping: action.presses)
            func milliseconds(_ source: Source) -> Int? {
                guard sources.takes(source), action.source ?? source == source else { return nil }
                return Int(gestures.thresholds.tapDelay(on: source, lookingFor: lookedFor) / .milliseconds(1))
            }
            let input = milliseconds(.input)
            return TapDelayMessage(input: input, sink: milliseconds(.sink), release: input != nil && lookedFor.hold ? true : nil)
        }

        private static func message(_ life: Life) -> ActionRunMessage? {
            switch life {
            case .running(let run): return ActionRunMessage(seq: run.seq, time: run.time, result: .running)
            case .idle(last: nil): return nil
            case .idle(let ended?):
                let seconds = (ended.took / .milliseconds(10)).rounded() / 100
                var message = ActionRunMessage(seq: ended.run.seq, time: ended.run.time, result: .exited, seconds: seconds)
                switch ended.outcome {
                case .exited(let status): message.status = Int(status)
                case .signaled(let signal): (message.result, message.signal) = (.signaled, Int(signal))
                case .timedOut: message.result = .timedOut
                case .failed(let error): (message.result, message.error, message.seconds) = (.failed, error, nil)
                }
                return message
            }
        }
    }
}
