import Testing

@testable import VolumeGuardCore

@Suite("Custody of original levels")
struct CustodianTests {
    static let full = SinkLevel(volume: .channels(Raw.full, Raw.full), muted: false)
    static let quiet = SinkLevel(volume: .channels(20000, 20000), muted: true)

    var ids = RequestIDs()

    static func reading(_ index: UInt32, _ name: String, _ level: SinkLevel) -> SinkState {
        SinkState(index: index, name: name, volume: level.volume, muted: level.muted)
    }

    static func held(_ name: String, original: SinkLevel) -> GuardCore.Guarded {
        GuardCore.Guarded(reading(1, name, original), original: original, margin: HeldLevel.defaultMargin)
    }

    /// The tags of the restore writes among `actions`.
    static func writes(_ actions: [GuardAction]) -> [WriteTag] {
        actions.compactMap {
            switch $0 {
            case .setVolume(_, _, let tag), .setMute(_, _, let tag): tag
            default: nil
            }
        }
    }

    /// Acknowledges every restore write among `actions`; returns the ticket of the check that follows.
    mutating func acknowledge(_ actions: [GuardAction], custodian: inout Custodian) -> ReadTicket? {
        var check: ReadTicket?
        for tag in Self.writes(actions) {
            for action in custodian.acknowledged(tag, ids: &ids) ?? [] {
                if case .readSink(.index, let ticket) = action { check = ticket }
            }
        }
        return check
    }

    @Test("a sink taken into custody keeps its own level as its original")
    func takesItsLevel() {
        var custodian = Custodian(recorded: [:])
        let (original, recovered) = custodian.take(Self.reading(1, Name.speakers, Self.quiet))
        #expect(original == Self.quiet)
        #expect(recovered == nil)
    }

    @Test("a sink remembered from a previous run gets that level as its original, and says so once")
    mutating func takesRecorded() {
        var custodian = Custodian(recorded: [Name.speakers: Self.full])
        #expect(custodian.custody(holding: nil) == [Name.speakers: Self.full])
        let (original, recovered) = custodian.take(Self.reading(1, Name.speakers, Self.quiet))
        #expect(original == Self.full)
        #expect(recovered == .recovered(sink: Name.speakers, to: Self.full))
        #expect(custodian.remembered.isEmpty)
    }

    @Test("a remembered level with other channels than the sink's now is dropped")
    func channelsChanged() {
        var custodian = Custodian(recorded: [Name.speakers: Self.full])
        let mono = SinkLevel(volume: .channels(30000), muted: false)
        let (original, recovered) = custodian.take(Self.reading(1, Name.speakers, mono))
        #expect(original == mono)
        #expect(recovered == nil)
        #expect(custodian.custody(holding: nil).isEmpty)
    }

    @Test("a lost sink is remembered, and its original is what it is taken with again")
    func lostIsRemembered() {
        var custodian = Custodian(recorded: [:])
        custodian.remember(Self.held(Name.headset, original: Self.full))
        #expect(custodian.custody(holding: nil) == [Name.headset: Self.full])
        let (original, recovered) = custodian.take(Self.reading(7, Name.headset, SinkLevel(volume: .channels(65535, 65535), muted: false)))
        #expect(original == Self.full)
        #expect(recovered == nil, "lost on this run, not recorded by another")
    }

    @Test("custody is announced when it changes, and only then")
    func announcesChanges() {
        var custodian = Custodian(recorded: [Name.hdmi: Self.quiet])
        let atStart = custodian.announce(holding: nil)
        #expect(atStart == nil, "the record already says so")
        let held = Self.held(Name.speakers, original: Self.full)
        let taken = custodian.announce(holding: held)
        let again = custodian.announce(holding: held)
        #expect(taken == .recordOriginals([Name.hdmi: Self.quiet, Name.speakers: Self.full]))
        #expect(again == nil)
        custodian.forgetRemembered()
        let forgotten = custodian.announce(holding: nil)
        #expect(forgotten == .recordOriginals([:]))
    }

    @Test("a sink given back stays in custody until a reading shows its original")
    mutating func givenBack() {
        var custodian = Custodian(recorded: [:])
        let actions = custodian.giveBack(3, named: Name.speakers, original: Self.quiet, ids: &ids)
        #expect(actions.count == 2)
        #expect(actions.contains { if case .setVolume(3, Self.quiet.volume, _) = $0 { true } else { false } })
        #expect(actions.contains { if case .setMute(3, true, _) = $0 { true } else { false } })
        #expect(!custodian.allGivenBack)
        #expect(custodian.custody(holding: nil) == [Name.speakers: Self.quiet])
        let check = acknowledge(actions, custodian: &custodian)
        #expect(check != nil, "read once both writes are acknowledged")
        #expect(!custodian.allGivenBack)
        let done = custodian.checked(check!, Self.reading(3, Name.speakers, Self.quiet), retries: 3, ids: &ids)
        #expect(done == [])
        #expect(custodian.allGivenBack)
        #expect(custodian.custody(holding: nil).isEmpty)
    }

    @Test("a restore that did not take is issued again, then given up on")
    mutating func restoreRetried() {
        var custodian = Custodian(recorded: [:])
        var actions = custodian.giveBack(3, named: Name.speakers, original: Self.quiet, ids: &ids)
        let unchanged = Self.reading(3, Name.speakers, Self.full)
        var check = acknowledge(actions, custodian: &custodian)!
        actions = custodian.checked(check, unchanged, retries: 1, ids: &ids) ?? []
        #expect(actions.first == .report(.restoreRetried(sink: Name.speakers, attempt: 1)))
        #expect(Self.writes(actions).count == 2)
        check = acknowledge(actions, custodian: &custodian)!
        actions = custodian.checked(check, unchanged, retries: 1, ids: &ids) ?? []
        #expect(actions == [.report(.restoreAbandoned(sink: Name.speakers, original: Self.quiet))])
        #expect(custodian.allGivenBack)
    }

    @Test("a sink gone before its check leaves custody")
    mutating func goneBeforeCheck() {
        var custodian = Custodian(recorded: [:])
        let actions = custodian.giveBack(3, named: Name.speakers, original: Self.quiet, ids: &ids)
        let check = acknowledge(actions, custodian: &custodian)!
        let done = custodian.checked(check, nil, retries: 3, ids: &ids)
        #expect(done == [])
        #expect(custodian.allGivenBack)
    }

    @Test("acknowledgements and readings that do not check a sink given back are left to the rest of the core")
    mutating func notMine() {
        var custodian = Custodian(recorded: [:])
        _ = custodian.giveBack(3, named: Name.speakers, original: Self.quiet, ids: &ids)
        let ack = custodian.acknowledged(WriteTag(seq: 99), ids: &ids)
        let reading = custodian.checked(ReadTicket(seq: 99), nil, retries: 3, ids: &ids)
        #expect(ack == nil)
        #expect(reading == nil)
    }

    @Test("while paused, remembered sinks that are present get their originals back; absent ones stay remembered")
    mutating func pausedGivesBack() {
        var custodian = Custodian(recorded: [Name.speakers: Self.full, Name.hdmi: Self.quiet])
        let actions = custodian.giveBackRemembered(
            [Self.reading(1, Name.speakers, SinkLevel(volume: .channels(65535, 65535), muted: false))], ids: &ids
        )
        #expect(actions.first == .report(.recovered(sink: Name.speakers, to: Self.full)))
        #expect(Self.writes(actions).count == 2)
        #expect(custodian.remembered == [Name.hdmi: Self.quiet])
        #expect(custodian.custody(holding: nil) == [Name.speakers: Self.full, Name.hdmi: Self.quiet])
    }

    @Test("a lost connection ends the givingBack on it, and keeps their sinks in custody: the restore may not have taken")
    mutating func connectionLost() {
        var custodian = Custodian(recorded: [:])
        _ = custodian.giveBack(3, named: Name.speakers, original: Self.quiet, ids: &ids)
        custodian.connectionLost()
        #expect(custodian.allGivenBack)
        #expect(custodian.remembered == [Name.speakers: Self.quiet])
        #expect(custodian.custody(holding: nil) == [Name.speakers: Self.quiet])
    }
}
