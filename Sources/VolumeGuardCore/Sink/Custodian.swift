/// Keeps the core's custody: the original levels it answers for, by sink name, and the giving back of them.
///
/// A sink's original is taken when it is first held, and is what it gets back in the end. Until then
/// the core keeps it: while the sink is held, while it is given back (until a reading shows the restore
/// took), and when the sink is lost without being given back (the server went away, the device was
/// unplugged), as *remembered*: such a sink may come back at the held level the server kept, and what
/// it gets in the end must still be the user's own. A previous run's record of custody (it was killed)
/// is remembered the same way, as *recorded*. Every change of custody is announced with
/// `recordOriginals`, so that a later run can finish the job.
struct Custodian: Hashable, Sendable {
    /// A sink being given back.
    private struct GivingBack: Hashable, Sendable {
        enum Phase: Hashable, Sendable {
            /// The restore writes, until each is acknowledged.
            case restoring(Set<WriteTag>)
            /// The reading that tells whether they took.
            case checking(ReadTicket)
        }

        var sink: UInt32
        var name: String
        var original: SinkLevel
        var phase: Phase
        var attempt = 0
    }

    /// The originals of sinks lost, or recorded by a previous run, that are given back if seen again.
    private(set) var remembered: [String: SinkLevel]
    /// The names in `remembered` that came from a previous run's record, for the log.
    private var recorded: Set<String>
    /// The sinks being given back now.
    private var givingBack: [GivingBack] = []
    /// The custody last announced with `recordOriginals`.
    private var announced: [String: SinkLevel]

    /// Custody of `remembered`, a previous run's record.
    init(recorded remembered: [String: SinkLevel]) {
        self.remembered = remembered
        recorded = Set(remembered.keys)
        announced = remembered
    }

    /// True once every sink given back has been read back at its original level (or given up on).
    var allGivenBack: Bool { givingBack.isEmpty }

    /// Whether the sink named `name` is being given back.
    func isGivingBack(_ name: String) -> Bool {
        givingBack.contains { $0.name == name }
    }

    /// Every original the core answers for, `held`'s among them.
    func custody(holding held: GuardCore.Guarded?) -> [String: SinkLevel] {
        var custody = remembered
        for giving in givingBack { custody[giving.name] = giving.original }
        if let held { custody[held.name] = held.original }
        return custody
    }

    /// `recordOriginals`, when the custody changed since it was last announced.
    mutating func announce(holding held: GuardCore.Guarded?) -> GuardAction? {
        let custody = custody(holding: held)
        guard custody != announced else { return nil }
        announced = custody
        return .recordOriginals(custody)
    }

    /// Takes the sink read as `reading` into custody, to hold it: returns its original (the one
    /// remembered for it, unless its channels changed, else its level now) and a report if that came
    /// from a previous run's record.
    mutating func take(_ reading: SinkState) -> (original: SinkLevel, recovered: GuardReport?) {
        defer { remembered[reading.name] = nil }
        return rememberedLevel(of: reading) ?? (reading.level, nil)
    }

    /// Gives sink `index`, named `name`, its original back; it stays in custody until a reading shows the
    /// writes took.
    mutating func giveBack(_ index: UInt32, named name: String, original: SinkLevel, ids: inout RequestIDs) -> [GuardAction] {
        remembered[name] = nil
        var giving = GivingBack(sink: index, name: name, original: original, phase: .restoring([]))
        let writes = restore(&giving, ids: &ids)
        givingBack.append(giving)
        return writes
    }

    /// While paused: gives each remembered sink among `sinks` its original back.
    mutating func giveBackRemembered(_ sinks: [SinkState], ids: inout RequestIDs) -> [GuardAction] {
        var actions: [GuardAction] = []
        for sink in sinks {
            guard let (original, recovered) = rememberedLevel(of: sink) else { continue }
            if let recovered { actions.append(.report(recovered)) }
            actions += giveBack(sink.index, named: sink.name, original: original, ids: &ids)
        }
        return actions
    }

    /// Keeps the original of a sink that went away while held, for when it comes back.
    mutating func remember(_ held: GuardCore.Guarded) {
        remembered[held.name] = held.original
    }

    /// An acknowledgement of a restore write, or nil when it is none: once the writes giving a sink back are all
    /// acknowledged, the sink is read to check them.
    mutating func acknowledged(_ tag: WriteTag, ids: inout RequestIDs) -> [GuardAction]? {
        for position in givingBack.indices {
            guard case .restoring(var writes) = givingBack[position].phase, writes.remove(tag) != nil else { continue }
            guard writes.isEmpty else {
                givingBack[position].phase = .restoring(writes)
                return []
            }
            let ticket = ids.ticket()
            givingBack[position].phase = .checking(ticket)
            return [.readSink(.index(givingBack[position].sink), ticket)]
        }
        return nil
    }

    /// The reading that checks a sink given back, or nil when it is none. The sink is back (or gone): it leaves
    /// custody. Otherwise a write did not take (pipewire-pulse's stale cache) and is issued again, up to
    /// `retries` times.
    mutating func checked(_ ticket: ReadTicket, _ reading: SinkState?, retries: Int, ids: inout RequestIDs) -> [GuardAction]? {
        guard let position = givingBack.firstIndex(where: { $0.phase == .checking(ticket) }) else { return nil }
        var giving = givingBack[position]
        guard let reading, reading.level != giving.original else {
            givingBack.remove(at: position)
            return []
        }
        guard giving.attempt < retries else {
            givingBack.remove(at: position)
            return [.report(.restoreAbandoned(sink: giving.name, original: giving.original))]
        }
        giving.attempt += 1
        let writes = restore(&giving, ids: &ids)
        givingBack[position] = giving
        return [.report(.restoreRetried(sink: giving.name, attempt: giving.attempt))] + writes
    }

    /// The connection is gone: no restore on it can be acknowledged or checked, so whether one took is
    /// unknown. Its sink stays in custody, remembered: given back if seen again, and kept in the record
    /// for the next start when the guard ends first.
    mutating func connectionLost() {
        for giving in givingBack { remembered[giving.name] = giving.original }
        givingBack = []
    }

    /// The remembered sinks are no longer answered for: at a clean end (a sink gone by then cannot be
    /// given back).
    mutating func forgetRemembered() {
        remembered = [:]
        recorded = []
    }

    /// The original remembered for `sink`, if it still fits it (the same channels), and a report if it came
    /// from a previous run's record (made once).
    private mutating func rememberedLevel(of sink: SinkState) -> (original: SinkLevel, recovered: GuardReport?)? {
        guard let original = remembered[sink.name], original.volume.channels.count == sink.volume.channels.count else { return nil }
        return (original, recorded.remove(sink.name).map { _ in .recovered(sink: sink.name, to: original) })
    }

    /// Issues the writes that put a sink being given back at its original level.
    private func restore(_ giving: inout GivingBack, ids: inout RequestIDs) -> [GuardAction] {
        let volumeTag = ids.tag()
        let muteTag = ids.tag()
        giving.phase = .restoring([volumeTag, muteTag])
        return [
            .setVolume(sink: giving.sink, giving.original.volume, volumeTag),
            .setMute(sink: giving.sink, giving.original.muted, muteTag),
        ]
    }
}
