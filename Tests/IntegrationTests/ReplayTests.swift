import GuardProtocol
import Testing

@Suite("Resuming with since", .serialized)
struct ReplayTests {
    /// `--step 5`: every press by `KeyPresser` counts 1.
    static let step: UInt32 = 3277

    @Test("Presses after since are replayed from the history, then live ones follow; a dropped one shows as a gap")
    func replay() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let daemon = try await Daemon(on: server, arguments: ["--step", "5", "--history", "8"])
        let keys = try await KeyPresser(on: server, sink: "guard_a")
        let witness = try await Subscriber(to: daemon)
        for _ in 0..<5 { try await keys.pressUp(by: Self.step) }
        let sent = try await witness.waitForPresses(5)

        for (since, expected) in [(0, 1...5), (2, 3...5), (4, 5...5)] {
            let resumed = try await Subscriber(to: daemon, request: Request(.subscribe, since: UInt64(since)))
            let reply = try #require(await resumed.reply)
            #expect(reply.lastSeq == 5)
            #expect(reply.gap == nil, "since \(since)")
            _ = try await resumed.waitForPresses(expected.count)
            // Replayed lines are the very lines first sent.
            #expect(await resumed.presses == Array(sent[(expected.lowerBound - 1)...]), "since \(since)")
        }
        // Nothing owed: since at or beyond the last seq (a client of an earlier daemon) means live only.
        var upToDate: [Subscriber] = []
        for since: UInt64 in [5, 500] {
            let subscriber = try await Subscriber(to: daemon, request: Request(.subscribe, since: since))
            #expect(await subscriber.reply?.gap == nil)
            upToDate.append(subscriber)
        }
        try await keys.pressUp(by: Self.step)
        for subscriber in upToDate {
            #expect(try await subscriber.waitForPresses(1).map(\.seq) == [6])
        }

        // The history keeps 8: after 12 presses, 1 to 4 are gone.
        for _ in 0..<6 { try await keys.pressUp(by: Self.step) }
        _ = try await witness.waitForPresses(12)
        for since: UInt64 in [0, 3] {
            let late = try await Subscriber(to: daemon, request: Request(.subscribe, since: since))
            #expect(await late.reply?.gap == true, "since \(since)")
            #expect(try await late.waitForPresses(8).map(\.seq) == Array(5...12))
        }
        let justInTime = try await Subscriber(to: daemon, request: Request(.subscribe, since: 4))
        #expect(await justInTime.reply?.gap == nil)
        #expect(try await justInTime.waitForPresses(8).map(\.seq) == Array(5...12))
        await expectNoMorePresses(justInTime, than: 8)
    }

    @Test("The subscribed reply names the daemon's run: the same for every client, another after a restart")
    func instance() async throws {
        let server = try AudioServer(.pulseaudio)
        let first = try await Daemon(on: server)
        let one = try #require(await Subscriber(to: first).reply?.instance)
        #expect(try #require(await Subscriber(to: first).reply?.instance) == one)
        #expect(await first.stop() == 0)
        let second = try await Daemon(on: server)
        let other = try #require(await Subscriber(to: second).reply?.instance)
        #expect(other != one)
    }

    @Test("Subscribing with since while presses stream in loses none and repeats none")
    func replayMeetsLive() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let daemon = try await Daemon(on: server, arguments: ["--step", "5"])
        let keys = try await KeyPresser(on: server, sink: "guard_a")
        let total = 300
        let pressing = Task {
            for _ in 0..<total { try await keys.pressUp(by: Self.step) }
        }
        var resumed: [(since: UInt64, subscriber: Subscriber)] = []
        while resumed.count < 12 {
            let last = try await daemon.status().lastSeq
            let since = last.saturatingSubtraction(UInt64(resumed.count % 4))
            resumed.append((since, try await Subscriber(to: daemon, request: Request(.subscribe, since: since))))
        }
        try await pressing.value
        for (since, subscriber) in resumed {
            let presses = try await subscriber.waitForPresses(total - Int(since))
            #expect(presses.map(\.seq) == Array((since + 1)..<UInt64(total + 1)), "since \(since)")
        }
    }
}

extension UInt64 {
    fileprivate func saturatingSubtraction(_ other: UInt64) -> UInt64 {
        self > other ? self - other : 0
    }
}
