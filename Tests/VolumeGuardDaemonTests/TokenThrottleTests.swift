import Testing

@testable import VolumeGuardDaemon

@Suite("Wrong tokens slow their sender down")
struct TokenThrottleTests {
    var throttle = TokenThrottle()

    @Test("Five wrong tokens in a minute refuse the address for a minute; another address is heard")
    mutating func lockout() {
        for second in 0..<4 {
            _ = throttle.failed(from: "10.0.0.2", at: .seconds(second))
            #expect(throttle.refusal(of: "10.0.0.2", at: .seconds(second)) == nil, "still heard after \(second + 1)")
        }
        _ = throttle.failed(from: "10.0.0.2", at: .seconds(4))
        #expect(throttle.refusal(of: "10.0.0.2", at: .seconds(4)) == .seconds(60))
        #expect(throttle.refusal(of: "10.0.0.2", at: .seconds(34)) == .seconds(30))
        #expect(throttle.refusal(of: "10.0.0.3", at: .seconds(34)) == nil)
        #expect(throttle.refusal(of: "10.0.0.2", at: .seconds(64)) == nil, "heard again once the minute is over")
    }

    @Test("Wrong tokens spread wider than the window never add up to a refusal")
    mutating func slowGuessing() {
        for tick in 0..<20 {
            _ = throttle.failed(from: "10.0.0.2", at: .seconds(tick * 15))
            #expect(throttle.refusal(of: "10.0.0.2", at: .seconds(tick * 15)) == nil, "four in any minute at most")
        }
    }

    @Test("The log hears of an address once, until it has been quiet for the window")
    mutating func loggedOnce() {
        var logged = [throttle.failed(from: "10.0.0.2", at: .zero)]
        for second in 1..<50 { logged.append(throttle.failed(from: "10.0.0.2", at: .seconds(second))) }
        #expect(logged == [true] + Array(repeating: false, count: 49))
        let other = throttle.failed(from: "10.0.0.3", at: .seconds(50))
        #expect(other)
        let kept = throttle.failed(from: "10.0.0.2", at: .seconds(100))
        #expect(!kept, "refused until 109: still kept")
        let again = throttle.failed(from: "10.0.0.2", at: .seconds(300))
        #expect(again, "forgotten, and heard of again")
    }

    @Test("A flood from more addresses than it keeps forgets the oldest, and stays bounded")
    mutating func bounded() {
        for index in 0..<(TokenThrottle.capacity + 100) {
            _ = throttle.failed(from: "fd00::\(index)", at: .milliseconds(index))
        }
        #expect(throttle.count == TokenThrottle.capacity)
    }
}
