import Logging
import VolumeGuardCore

extension Logger {
    /// Logs what the core reports: sinks taken and given back, resets that did not take, a contest.
    func log(_ report: GuardReport) {
        switch report {
        case .guarding(let sink, let original, let held):
            info("guarding sink", metadata: ["sink": "\(sink)", "original": "\(original.volume)", "muted": "\(original.muted)", "held": "\(held)"])
        case .givenBack(let sink, let level):
            info("gave the sink its level back", metadata: ["sink": "\(sink)", "volume": "\(level.volume)", "muted": "\(level.muted)"])
        case .resetRetried(let sink, let attempt):
            debug("reset did not take; issued again", metadata: ["sink": "\(sink)", "attempt": "\(attempt)"])
        case .resetAbandoned(let sink):
            warning("reset keeps not taking; leaving the sink where it is", metadata: ["sink": "\(sink)"])
        case .restoreRetried(let sink, let attempt):
            debug("giving the sink its level back did not take; done again", metadata: ["sink": "\(sink)", "attempt": "\(attempt)"])
        case .restoreAbandoned(let sink, let original):
            error("could not give the sink its level back", metadata: ["sink": "\(sink)", "volume": "\(original.volume)", "muted": "\(original.muted)"])
        case .recovered(let sink, let level):
            notice("restoring \(sink) to its recorded level from a previous run", metadata: ["volume": "\(level.volume)", "muted": "\(level.muted)"])
        case .sinkLost(let sink):
            notice("guarded sink went away", metadata: ["sink": "\(sink)"])
        case .contested(let sink, let held):
            warning(
                "another client sets the volume right after every reset; holding its level instead of fighting it",
                metadata: ["sink": "\(sink)", "held": "\(held)"]
            )
        }
    }
}
