import Testing
import VolumeGuardCore

@Suite("The shell's lifecycle")
struct GuardLifecycleTests {
    var lifecycle = GuardLifecycle()

    /// Starts, and connects the first attempt to a server.
    mutating func connected() -> Int {
        _ = lifecycle.handle(.start, at: .zero)
        let generation = lifecycle.link!.generation
        _ = lifecycle.handle(.connected(generation: generation, server: "pulseaudio 16.1"), at: .zero)
        return generation
    }

    @Test("It starts by connecting, and feeds the core once the attempt connected")
    mutating func start() {
        let started = lifecycle.handle(.start, at: .zero)
        #expect(started == [.connect(generation: 1)])
        let connected = lifecycle.handle(.connected(generation: 1, server: "pulseaudio 16.1"), at: .zero)
        #expect(connected == [.feed(.connected)])
        #expect(lifecycle.server == "pulseaudio 16.1")
        #expect(lifecycle.handle(.start, at: .zero).isEmpty, "started once")
    }

    @Test("A shutdown before it ever started (no sink to guard) ends at once")
    mutating func shutdownUnstarted() {
        #expect(lifecycle.handle(.shutdown, at: .zero) == [.end])
        #expect(lifecycle.hasEnded)
        #expect(lifecycle.handle(.start, at: .zero).isEmpty, "ended is final")
    }

    @Test("A lost connection is closed, told to the core, and tried again after a backoff")
    mutating func lost() {
        let generation = connected()
        let actions = lifecycle.handle(.lost(generation: generation), at: .zero)
        let next = lifecycle.link!.generation
        #expect(actions == [.close, .feed(.disconnected), .retry(generation: next, after: GuardLifecycle.firstBackoff)])
        #expect(lifecycle.server == nil)
        #expect(lifecycle.handle(.retryDue(generation: next), at: .zero) == [.connect(generation: next)])
    }

    @Test("A lost attempt is retired: what it still reports is stale, so one loss is acted on once")
    mutating func lossRetiresTheAttempt() {
        let generation = connected()
        _ = lifecycle.handle(.lost(generation: generation), at: .zero)
        #expect(!lifecycle.isCurrent(generation))
        #expect(lifecycle.handle(.lost(generation: generation), at: .zero).isEmpty)
        #expect(lifecycle.handle(.connected(generation: generation, server: "x"), at: .zero).isEmpty)
    }

    @Test("An attempt that never connected is tried again without telling the core")
    mutating func failedAttempt() {
        _ = lifecycle.handle(.start, at: .zero)
        let actions = lifecycle.handle(.lost(generation: 1), at: .zero)
        #expect(actions == [.close, .retry(generation: 2, after: GuardLifecycle.firstBackoff)])
    }

    @Test("Attempts back off, doubling up to the maximum, and start fast again once one connects; failures in a row are counted")
    mutating func backoff() {
        _ = lifecycle.handle(.start, at: .zero)
        var delays: [Duration] = []
        for _ in 0..<7 {
            let generation = lifecycle.link!.generation
            for case .retry(_, let after) in lifecycle.handle(.lost(generation: generation), at: .zero) { delays.append(after) }
        }
        #expect(delays == [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        #expect(lifecycle.failedAttempts == 7)
        let generation = lifecycle.link!.generation
        _ = lifecycle.handle(.connected(generation: generation, server: "x"), at: .zero)
        #expect(lifecycle.failedAttempts == 0)
        let again = lifecycle.handle(.lost(generation: generation), at: .zero)
        #expect(again.contains(.retry(generation: generation + 1, after: GuardLifecycle.firstBackoff)))
        #expect(lifecycle.failedAttempts == 0, "a connection lost is no failed attempt")
    }

    @Test("Shutdown tells the core and sets a deadline; the shell ends once the sinks are given back")
    mutating func shutdown() {
        _ = connected()
        let stopping = lifecycle.handle(.shutdown, at: .seconds(5))
        #expect(stopping == [.feed(.shutdown), .setDeadline(.seconds(5) + GuardLifecycle.giveBackTimeout)])
        #expect(lifecycle.handle(.givenBack, at: .seconds(6)) == [.end])
        #expect(lifecycle.hasEnded)
        #expect(lifecycle.handle(.deadlinePassed, at: .seconds(8)).isEmpty)
    }

    @Test("A shutdown whose sinks are not given back in time ends at the deadline, and says so")
    mutating func deadline() {
        _ = connected()
        _ = lifecycle.handle(.shutdown, at: .zero)
        #expect(lifecycle.handle(.deadlinePassed, at: GuardLifecycle.giveBackTimeout) == [.reportNotGivenBack, .end])
    }

    @Test("Stopping, a lost connection is not tried again, and an attempt that connects late is closed")
    mutating func noAttemptWhileStopping() {
        _ = lifecycle.handle(.start, at: .zero)
        _ = lifecycle.handle(.shutdown, at: .zero)
        let late = lifecycle.handle(.connected(generation: 1, server: "x"), at: .zero)
        #expect(late == [.close])

        var other = GuardLifecycle()
        _ = other.handle(.start, at: .zero)
        _ = other.handle(.connected(generation: 1, server: "x"), at: .zero)
        _ = other.handle(.shutdown, at: .zero)
        let lost = other.handle(.lost(generation: 1), at: .zero)
        #expect(lost == [.close, .feed(.disconnected)])
        #expect(other.handle(.retryDue(generation: 2), at: .zero).isEmpty)
    }
}
