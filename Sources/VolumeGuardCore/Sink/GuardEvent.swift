/// Everything the guard core is told: what the audio server reported, replies to the core's own
/// requests, and what a client or the service asked for. Fed in the order it happened.
public enum GuardEvent: Hashable, Sendable {
    /// A connection to the audio server is ready (the first, or a new one after a restart).
    case connected
    /// The connection to the audio server is gone; indices from it mean nothing any more.
    case disconnected
    /// A server change event: the default sink may have changed.
    case serverChanged
    /// Reply to `readDefaultSink`: the server's default sink name, if it has one.
    case defaultSink(String?)
    /// A sink appeared (a device was plugged in, a module loaded).
    case sinkAdded(index: UInt32)
    /// A sink change event. It carries no values: the core reads the sink to learn what changed.
    case sinkChanged(index: UInt32)
    /// A sink was removed (unplugged, module unloaded).
    case sinkRemoved(index: UInt32)
    /// Reply to `readSink`: the sink's state, or nil when there is no such sink.
    case sinkRead(ReadTicket, SinkState?)
    /// Reply to `readSinks`: every sink the server has.
    case sinksRead(ReadTicket, [SinkState])
    /// Acknowledgement of a write the core issued, taken or refused: either way the reading after it
    /// tells what the sink holds.
    case written(WriteTag)
    /// Let the keys act normally until `resume`.
    case pause
    /// Guard again, holding the sink's current level.
    case resume
    /// A `wakeUp` the core asked for is due.
    case wakeUp
    /// A new configuration (the daemon reloaded its config file): the sink selection, key step, mute
    /// guarding and clamp margin take effect at once.
    case reconfigure(GuardCore.Configuration)
    /// Give the sink back (original volume and mute) and stop.
    case shutdown
}
