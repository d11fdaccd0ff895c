import GuardSettings

/// Which link to the MQTT broker the guard keeps as reloads come, and when a link starts. A reload whose
/// link would differ (other settings, other discovery configs) replaces the one in use only once that one
/// has said `offline` and disconnected, so that its `offline` cannot come after the new one's `online`; a
/// reload that comes meanwhile makes the replacement its own. The daemon's stop starts none. Each link has
/// a number of its own, its generation, by which what its connection reports is told apart from a
/// replaced one's.
struct BrokerSuccession {
    enum State: Equatable {
        /// No link: no `mqtt`, or the last one a reload left finished.
        case none
        /// The link `generation` is in use.
        case running(generation: Int)
        /// The link `generation` is stopping; one of `next` starts once it has finished.
        case replacing(generation: Int, next: DaemonConfiguration)
        /// The daemon's stop: the link `generation`, if any, is ending, and none starts after it.
        case ending(generation: Int?)
    }

    enum Event {
        /// The daemon's start, with its configuration.
        case start(DaemonConfiguration)
        /// A reload; `changes`: whether its link differs from the one in use (any link, where none is).
        case reload(DaemonConfiguration, changes: Bool)
        /// The link `generation` has said `offline`, disconnected and ended.
        case finished(generation: Int)
        /// The daemon's stop.
        case end
    }

    enum Action: Equatable {
        /// Start the link of `configuration` as `generation`; after a `finished`, it replaces that link:
        /// it removes the configs that one published and it has not, and sends the presses that one did
        /// not get out.
        case start(DaemonConfiguration, generation: Int)
        /// Stop the link `generation`: `offline`, then disconnect.
        case stop(generation: Int)
    }

    private(set) var state = State.none
    private var generations = 0

    mutating func handle(_ event: Event) -> Action? {
        switch (state, event) {
        case (.none, .start(let configuration)), (.none, .reload(let configuration, changes: true)):
            return start(configuration)
        case (.running(let generation), .reload(let configuration, changes: true)):
            state = .replacing(generation: generation, next: configuration)
            return .stop(generation: generation)
        case (.replacing(let generation, _), .reload(let configuration, _)):
            state = .replacing(generation: generation, next: configuration)
            return nil
        case (.replacing(let generation, let next), .finished(let finished)) where finished == generation:
            return start(next)
        case (.running(let generation), .finished(let finished)) where finished == generation:
            state = .none
            return nil
        case (.running(let generation), .end):
            state = .ending(generation: generation)
            return .stop(generation: generation)
        case (.replacing(let generation, _), .end):
            // Already stopping.
            state = .ending(generation: generation)
            return nil
        case (.none, .end):
            state = .ending(generation: nil)
            return nil
        case (.ending(let generation?), .finished(let finished)) where finished == generation:
            state = .ending(generation: nil)
            return nil
        case (.none, _), (.running, _), (.replacing, _), (.ending, _):
            // A reload that changes nothing, a finish of a link already replaced, anything after the stop.
            return nil
        }
    }

    /// The link of `configuration`, if it asks for one.
    private mutating func start(_ configuration: DaemonConfiguration) -> Action? {
        guard configuration.broker != nil else {
            state = .none
            return nil
        }
        generations += 1
        state = .running(generation: generations)
        return .start(configuration, generation: generations)
    }
}
