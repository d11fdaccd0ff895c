@testable import VolumeGuardCore
import Testing

@Suite("Following the sink")
struct SinkFollowerTests {
    static let chosen = SinkSelection.matching("bluez_output.*")

    var follower = SinkFollower(selection: .defaultSink)

    /// Every request `noSink` makes until it makes none.
    mutating func rechecks() -> [SinkFollower.Request] {
        var requests: [SinkFollower.Request] = []
        while let request = follower.noSink(), requests.count < 100 { requests.append(request) }
        return requests
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

    @Test("with no default the follower asks again a bounded number of times, backing off")
    mutating func boundedRechecks() {
        let requests = rechecks()
        let delays = requests.compactMap { if case .recheck(let after) = $0 { after } else { nil } }
        #expect(requests.count == SinkFollower.recheckLimit)
        #expect(delays.count == requests.count)
        #expect(delays.first == .milliseconds(50))
        #expect(delays == delays.sorted() && delays.first! < delays.last!)
    }

    @Test("when sinks appear but no default does, a fresh connection is asked for, once per connection")
    mutating func reconnect() {
        _ = follower.sinkAdded(3)
        let requests = rechecks()
        #expect(requests.filter { $0 == .reconnect }.count == 1)
        #expect(requests[3] == .reconnect, "after three rechecks")
        follower.connected()
        _ = follower.sinkAdded(3)
        let onNewConnection = rechecks()
        #expect(onNewConnection.contains(.reconnect))
    }

    @Test("a sink found, or a new connection, starts the rechecks afresh")
    mutating func startAfresh() {
        _ = rechecks()
        let spent = follower.noSink()
        #expect(spent == nil)
        follower.found()
        let afterFound = follower.noSink()
        #expect(afterFound == .recheck(after: .milliseconds(50)))
        _ = rechecks()
        follower.connected()
        let afterConnecting = follower.noSink()
        #expect(afterConnecting == .recheck(after: .milliseconds(50)))
    }

    @Test("a chosen sink is waited for without asking again")
    mutating func chosenWaits() {
        follower = SinkFollower(selection: Self.chosen)
        let requests = rechecks()
        #expect(requests.isEmpty)
    }
}
