import Testing

@testable import VolumeGuardCore

@Suite("Requests in flight")
struct InFlightTests {
    var ids = RequestIDs()
    var inFlight = InFlight()

    /// The read `readIfDue` asks for, if any.
    mutating func readIfDue() -> ReadTicket? { inFlight.readIfDue(&ids) }

    @Test("a sink that changed is read at once when nothing is in flight, and only once")
    mutating func dueIsRead() {
        #expect(readIfDue() == nil, "nothing changed")
        inFlight.sinkChanged()
        let ticket = readIfDue()
        #expect(ticket != nil)
        #expect(readIfDue() == nil, "one read at a time")
        let changes = ticket.flatMap { inFlight.answered($0) }
        #expect(changes == 0)
        #expect(readIfDue() == nil, "nothing changed since the read was asked for")
    }

    @Test("changes while a read is on its way are counted, and need no read after the reply, which shows them")
    mutating func changeDuringRead() {
        let ticket = inFlight.read(&ids)
        inFlight.sinkChanged()
        inFlight.sinkChanged()
        let changes = inFlight.answered(ticket)
        #expect(changes == 2)
        #expect(readIfDue() == nil)
        inFlight.sinkChanged()
        #expect(readIfDue() != nil, "a change after the reply is read")
    }

    @Test("a reply to a read no longer awaited is stale")
    mutating func staleReply() {
        let old = inFlight.read(&ids)
        let new = inFlight.read(&ids)
        let toOld = inFlight.answered(old)
        let toNew = inFlight.answered(new)
        let again = inFlight.answered(new)
        #expect(toOld == nil)
        #expect(toNew == 0)
        #expect(again == nil, "answered already")
    }

    @Test("no read while a correction's writes are unacknowledged; the last acknowledgement makes the sink due")
    mutating func writesThenVerification() {
        let volume = inFlight.write(&ids)
        let mute = inFlight.write(&ids)
        inFlight.sinkChanged()
        #expect(readIfDue() == nil)
        let first = inFlight.acknowledged(volume)
        #expect(!first)
        #expect(readIfDue() == nil)
        let stranger = inFlight.acknowledged(WriteTag(seq: 99))
        #expect(!stranger, "not one of the correction's")
        let last = inFlight.acknowledged(mute)
        #expect(last)
        #expect(readIfDue() != nil, "the verification")
    }

    @Test("forgetting drops the read on its way")
    mutating func forget() {
        let ticket = inFlight.read(&ids)
        inFlight.forget()
        #expect(!inFlight.isReading)
        let changes = inFlight.answered(ticket)
        #expect(changes == nil)
    }

    @Test("tags and tickets are new each time, whoever asks")
    mutating func idsAreNew() {
        let tags = (0..<5).map { _ in ids.tag() }
        let tickets = (0..<5).map { _ in ids.ticket() }
        #expect(Set(tags).count == 5)
        #expect(Set(tickets).count == 5)
    }
}
