import Testing

@testable import VolumeGuardCore

@Suite("Following the sink")
struct SinkFollowerTests {
    static let chosen = SinkSelection.matching("bluez_output.*")

    var follower = SinkFollower(selection: .defaultSink)

    /// The first `count` requests `noSink` makes, answering a listing of the server's sinks with `sinks`.
    mutating func rechecks(_ count: Int = 20, sinks: [SinkState] = []) -> [SinkFollower.Request] {
        var requests: [SinkFollower.Request] = []
        while requests.count < count, let request = follower.noSink() {
            requests.append(request)
            if request == .readAll { follower.listed(sinks) }
        }
        return requests
    }

    static func delays(_ requests: [SinkFollower.Request]) -> [Duration] {
        requests.compactMap { if case .recheck(let after) = $0 { after } else { nil } }
    }

    static func sink(_ index: UInt32, _ name: String) -> SinkState {
        SinkState(index: index, name: name, volume: .channels(30000), muted: false)
    }

    @Test("the default is asked for; a chosen sink is looked for among all")
    func seek() {
        #expect(follower.seek == .readDefaultSink)
        #expect(SinkFollower(selection: Self.chosen).seek == .readAll)
    }

    @Test("a server change asks for the default only when it is followed")
    func serverChange() {
        #expect(follower.askDefault == .readDefaultSink)
        #expect(SinkFollower(selection: Self.chosen).askDefault == nil)
    }

    @Test("a newly named default is followed, and the sink read by that name is the one to hold")
    mutating func followsDefault() {
        let follows = follower.follow(Name.hdmi, holding: Name.speakers, reading: false)
        #expect(follows)
        #expect(follower.picks(Name.hdmi))
        #expect(!follower.picks(Name.speakers))
    }

    @Test("the default already held, or already being resolved, is not followed again")
    mutating func sameDefault() {
        let held = follower.follow(Name.speakers, holding: Name.speakers, reading: false)
        #expect(!held)
        _ = follower.follow(Name.hdmi, holding: nil, reading: false)
        let resolving = follower.follow(Name.hdmi, holding: nil, reading: true)
        #expect(!resolving)
        let answered = follower.follow(Name.hdmi, holding: nil, reading: false)
        #expect(answered, "no read on its way: ask again")
        let none = follower.follow(nil, holding: Name.hdmi, reading: false)
        #expect(none, "no default any more: the sink held is given back")
    }

    @Test("a chosen sink does not follow the default, and is picked by its pattern")
    mutating func chosenSink() {
        follower = SinkFollower(selection: Self.chosen)
        let follows = follower.follow(Name.speakers, holding: Name.headset, reading: false)
        #expect(!follows)
        #expect(follower.picks(Name.headset))
        #expect(!follower.picks(Name.speakers))
        #expect(follower.chosen(among: [Self.sink(1, Name.speakers), Self.sink(2, Name.headset)])?.index == 2)
    }

    @Test("forgetting the default being resolved: a late reading of it is not held")
    mutating func forget() {
        _ = follower.follow(Name.hdmi, holding: nil, reading: false)
        follower.forget()
        #expect(!follower.picks(Name.hdmi))
    }

    @Test("a sink that appears is read when chosen; the default is asked for again when followed")
    mutating func sinkAdded() {
        let asked = follower.sinkAdded(7)
        #expect(asked == .readDefaultSink)
        var chosen = SinkFollower(selection: Self.chosen)
        let read = chosen.sinkAdded(7)
        #expect(read == .read(.index(7)))
    }

    @Test("with no default the follower asks again, backing off to a slow pace, and never stops")
    mutating func rechecksNeverStop() {
        let requests = rechecks(100)
        let delays = Self.delays(requests)
        #expect(requests.count == 100)
        #expect(delays.first == SinkFollower.firstRecheck)
        #expect(delays == delays.sorted())
        #expect(delays.last == SinkFollower.slowPace)
    }

    @Test("a server with no sinks is asked for its sinks once per connection, and never left for a fresh connection")
    mutating func noSinksNoReconnect() {
        let requests = rechecks(100)
        #expect(requests.filter { $0 == .readAll }.count == 1)
        #expect(requests[SinkFollower.reconnectAfter] == .readAll, "after three rechecks")
        #expect(!requests.contains(.reconnect))
    }

    @Test("a connection that names no default while the server has sinks is blind: dropped once, whatever order the sinks came in")
    mutating func blindConnection() {
        let present = rechecks(100, sinks: [Self.sink(1, Name.hdmi)])
        #expect(present.filter { $0 == .reconnect }.count == 1)
        #expect(present[SinkFollower.reconnectAfter] == .readAll)
        #expect(present[SinkFollower.reconnectAfter + 1] == .reconnect)

        follower = SinkFollower(selection: .defaultSink)
        _ = rechecks(SinkFollower.reconnectAfter)
        _ = follower.sinkAdded(3)
        let appeared = rechecks(100)
        #expect(appeared.first == .reconnect, "a sink that appeared needs no listing")
        #expect(appeared.filter { $0 == .reconnect }.count == 1)
    }

    @Test("each connection dropped in a row for blindness waits one recheck longer, up to twice as many")
    mutating func blindBackoff() {
        var waited: [Int] = []
        for _ in 0..<6 {
            follower.connected()
            let requests = rechecks(100, sinks: [Self.sink(1, Name.hdmi)])
            waited.append(Self.delays(Array(requests.prefix { $0 != .reconnect })).count)
        }
        let first = SinkFollower.reconnectAfter
        #expect(waited == [first, first + 1, first + 2, 2 * first, 2 * first, 2 * first])
        follower.found()
        follower.connected()
        let afterFound = rechecks(100, sinks: [Self.sink(1, Name.hdmi)])
        #expect(Self.delays(Array(afterFound.prefix { $0 != .reconnect })).count == first, "a sink held starts the count afresh")
    }

    @Test("a sink found, or a new connection, starts the rechecks afresh")
    mutating func startAfresh() {
        _ = rechecks()
        follower.found()
        let afterFound = follower.noSink()
        #expect(afterFound == .recheck(after: SinkFollower.firstRecheck))
        _ = rechecks()
        follower.connected()
        let afterConnecting = follower.noSink()
        #expect(afterConnecting == .recheck(after: SinkFollower.firstRecheck))
    }

    @Test("a chosen sink is waited for without asking again")
    mutating func chosenWaits() {
        follower = SinkFollower(selection: Self.chosen)
        let requests = rechecks()
        #expect(requests.isEmpty)
    }
}
