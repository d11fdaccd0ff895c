import GuardProtocol

/// What the guard core asks its shell to do, in order.
public enum GuardAction: Hashable, Sendable {
    /// Ask the server for its default sink; reply with `GuardEvent.defaultSink`.
    case readDefaultSink
    /// Drop the server connection and make a new one (then `GuardEvent.connected` as usual).
    case reconnect
    /// Feed `GuardEvent.wakeUp` after `after`: the core's only timer (the end of a burst, a mute press held
    /// back for its volume half, asking again for a default sink). A shell may keep just one timer, for the
    /// earliest wake-up asked for: on every wake-up the core asks again for whatever is due later.
    case wakeUp(after: Duration)
    /// Read a sink; reply with `GuardEvent.sinkRead` carrying the same ticket.
    case readSink(SinkQuery, ReadTicket)
    /// Read every sink; reply with `GuardEvent.sinksRead` carrying the same ticket.
    case readSinks(ReadTicket)
    /// Set every channel of the sink; acknowledge with `GuardEvent.written`.
    case setVolume(sink: UInt32, SinkVolume, WriteTag)
    /// Set the sink's mute; acknowledge with `GuardEvent.written`.
    case setMute(sink: UInt32, Bool, WriteTag)
    /// The original levels in the core's custody changed: record them where a later run will find them,
    /// before performing the actions that follow (the first write to a newly held sink comes after).
    /// Empty once every sink has been given back.
    case recordOriginals([String: SinkLevel])
    /// A press of `direction`, of `count` key steps, on the sink named `sink`: for the `PressPipeline`.
    case pressed(Direction, count: Int, sink: String)
    /// The sink's presses stopped for a reason other than their key (the connection was lost): tell the
    /// `PressPipeline`, so that a hold guessed from them ends.
    case pressesInterrupted
    /// The guard's state changed (for status and subscribers).
    case stateChanged(GuardState)
    /// Something worth a log line.
    case report(GuardReport)
}

/// Notable decisions, for the log.
public enum GuardReport: Hashable, Sendable {
    /// Started holding `sink`: its original level is what will be restored.
    case guarding(sink: String, original: SinkLevel, held: SinkVolume)
    /// Gave `sink` its original level back.
    case givenBack(sink: String, to: SinkLevel)
    /// A reset did not take (pipewire-pulse skips a set equal to its stale cache) and was issued again.
    case resetRetried(sink: String, attempt: Int)
    /// A reset kept not taking; the guard left the sink where it is.
    case resetAbandoned(sink: String)
    /// Giving a sink its original back did not take and was done again.
    case restoreRetried(sink: String, attempt: Int)
    /// Giving a sink its original back kept not taking: it is not at the user's level.
    case restoreAbandoned(sink: String, original: SinkLevel)
    /// A sink is given its level from a previous run's record: that run ended without giving it back.
    case recovered(sink: String, to: SinkLevel)
    /// The guarded sink went away.
    case sinkLost(sink: String)
    /// Another client set the sink right after every reset: the guard holds that client's level now.
    case contested(sink: String, held: SinkVolume)
}
