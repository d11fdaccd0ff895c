import GuardProtocol
import Testing
import VolumeGuardCore

/// Plays presses at given times through a detector, waking it when it asks, and collects gestures.
struct GestureScript {
    var detector = GestureDetector()
    var gestures: [(at: Duration, gesture: Gesture)] = []
    private var wake: Duration?
    private var seq: UInt64 = 0

    /// A key held from `start` for `repeats` repeats: the first press, then `delay`, then every `period`
    /// (plus the jitter given for each interval in turn).
    mutating func hold(_ direction: Direction, from start: Duration, delay: Duration, period: Duration, repeats: Int, jitter: [Duration] = []) -> Duration {
        var time = start
        press(direction, at: time)
        time += delay
        for index in 0..<repeats {
            press(direction, at: time)
            time += period + (jitter.isEmpty ? .zero : jitter[index % jitter.count])
        }
        return time
    }

    mutating func press(_ direction: Direction, at time: Duration, count: Int = 1) {
        advance(to: time)
        seq += 1
        let (found, next) = detector.press(direction, seq: seq, count: count, sink: "s", at: time)
        record(found, at: time, next: next)
    }

    mutating func interrupt(at time: Duration) {
        advance(to: time)
        gestures += detector.interrupt(at: time).map { (time, $0) }
        wake = nil
    }

    /// Lets time pass to `time`, waking the detector whenever it asked to be.
    mutating func advance(to time: Duration) {
        while let due = wake, due <= time {
            wake = nil
            let (found, next) = detector.wakeUp(at: due)
            record(found, at: due, next: next)
        }
    }

    private mutating func record(_ found: [Gesture], at time: Duration, next: Duration?) {
        gestures += found.map { (time, $0) }
        wake = next.map { time + $0 }
    }

    var kinds: [String] { gestures.map { "\($0.gesture.kind.rawValue):\($0.gesture.direction?.rawValue ?? "-")" } }
}

@Suite("Gestures from the timing of presses")
struct GestureTests {
    struct Desktop: CustomStringConvertible, Sendable {
        var name: String
        var delay: Duration
        var period: Duration
        var description: String { name }
    }

    static let desktops = [
        Desktop(name: "kernel", delay: .milliseconds(250), period: .milliseconds(33)),
        Desktop(name: "GNOME", delay: .milliseconds(500), period: .milliseconds(30)),
        Desktop(name: "KDE", delay: .milliseconds(600), period: .milliseconds(40)),
        Desktop(name: "Bluetooth remote", delay: .milliseconds(300), period: .milliseconds(100)),
    ]

    @Test("a held key is one hold_start at its second repeat and one hold_end soon after it is let go", arguments: desktops)
    func hold(desktop: Desktop) {
        var script = GestureScript()
        let end = script.hold(.up, from: .seconds(1), delay: desktop.delay, period: desktop.period, repeats: 20)
        script.advance(to: end + .seconds(2))
        #expect(script.kinds == ["hold_start:up", "hold_end:up"])
        let start = script.gestures[0]
        #expect(start.gesture.presses == 3)
        #expect(start.at == .seconds(1) + desktop.delay + desktop.period)
        let finish = script.gestures[1]
        #expect(finish.gesture.presses == 21)
        #expect(finish.gesture.seq == 21)
        // Let go: told within a few periods of the last repeat, not after a long fixed timeout.
        let lastRepeat = end - desktop.period
        #expect(finish.at - lastRepeat <= max(desktop.period * 3, GestureDetector.Thresholds().repeatPeriod) + .milliseconds(1))
    }

    @Test("jittery repeats are still one hold", arguments: desktops)
    func jitter(desktop: Desktop) {
        var script = GestureScript()
        let jitter: [Duration] = [.milliseconds(-8), .milliseconds(12), .zero, .milliseconds(9), .milliseconds(-5)]
        let end = script.hold(.down, from: .zero, delay: desktop.delay, period: desktop.period, repeats: 30, jitter: jitter)
        script.advance(to: end + .seconds(2))
        #expect(script.kinds == ["hold_start:down", "hold_end:down"])
    }

    @Test("merged repeats (one press standing for several) still make one hold, counting every step")
    func mergedRepeats() {
        var script = GestureScript()
        script.press(.up, at: .zero)
        script.press(.up, at: .milliseconds(250))
        for index in 1...10 { script.press(.up, at: .milliseconds(250 + 66 * index), count: 2) }
        script.advance(to: .seconds(3))
        #expect(script.kinds == ["hold_start:up", "hold_end:up"])
        #expect(script.gestures.last?.gesture.presses == 22)
    }

    @Test("a hold that changes direction ends, and the other direction may start its own")
    func changesDirection() {
        var script = GestureScript()
        let turn = script.hold(.up, from: .zero, delay: .milliseconds(250), period: .milliseconds(33), repeats: 10)
        let end = script.hold(.down, from: turn, delay: .milliseconds(250), period: .milliseconds(33), repeats: 10)
        script.advance(to: end + .seconds(1))
        #expect(script.kinds == ["hold_start:up", "hold_end:up", "hold_start:down", "hold_end:down"])
        #expect(script.gestures[1].at == turn)
    }

    @Test("a hold interrupted by a server restart ends there")
    func interrupted() {
        var script = GestureScript()
        _ = script.hold(.up, from: .zero, delay: .milliseconds(250), period: .milliseconds(33), repeats: 5)
        script.interrupt(at: .milliseconds(400))
        script.advance(to: .seconds(2))
        #expect(script.kinds == ["hold_start:up", "hold_end:up"])
        #expect(script.gestures[1].at == .milliseconds(400))
    }

    @Test(
        "two quick presses are a double, told once no repeat can follow, and neither is a tap",
        arguments: [
            Duration.milliseconds(120), .milliseconds(250), .milliseconds(390),
        ])
    func double(gap: Duration) {
        var script = GestureScript()
        script.press(.down, at: .seconds(1))
        script.press(.down, at: .seconds(1) + gap)
        script.advance(to: .seconds(9))
        #expect(script.kinds == ["double:down"])
        #expect(script.gestures[0].gesture.presses == 2)
        #expect(script.gestures[0].at > .seconds(1) + gap)
    }

    @Test("presses too far apart for a double but within a first repeat's delay are two taps once no repeat follows; a hold is neither")
    func notDouble() {
        var script = GestureScript()
        script.press(.up, at: .zero)
        script.press(.up, at: .milliseconds(700))
        script.advance(to: .seconds(2))
        #expect(script.kinds == ["tap:up", "tap:up"])
        #expect(script.gestures.map(\.gesture.seq) == [1, 2])
        #expect(script.gestures[0].at == .milliseconds(850), "told once the second could no longer be a first repeat")
        script.gestures = []
        _ = script.hold(.up, from: .seconds(3), delay: .milliseconds(250), period: .milliseconds(33), repeats: 5)
        script.advance(to: .seconds(5))
        #expect(script.kinds == ["hold_start:up", "hold_end:up"])
    }

    @Test("mute presses make no gesture")
    func muteIgnored() {
        var script = GestureScript()
        script.press(.mute, at: .zero)
        script.press(.mute, at: .milliseconds(100))
        script.advance(to: .seconds(2))
        #expect(script.kinds.isEmpty)
    }

    @Test("a lone press is a tap, told once its run's window has passed")
    func tap() {
        var script = GestureScript()
        script.press(.up, at: .seconds(1))
        script.advance(to: .seconds(1) + .milliseconds(799))
        #expect(script.kinds.isEmpty, "a first repeat or a second press may still come")
        script.advance(to: .seconds(3))
        #expect(script.kinds == ["tap:up"])
        #expect(script.gestures[0].at == .seconds(1) + GestureDetector.Thresholds().tapDelay(on: .sink, lookingFor: .all))
        #expect(script.gestures[0].gesture.seq == 1)
        #expect(script.gestures[0].gesture.presses == 1)
    }

    @Test("a press of the other key ends a lone press's run: it is a tap, told then")
    func tapThenOtherKey() {
        var script = GestureScript()
        script.press(.up, at: .zero)
        script.press(.down, at: .milliseconds(200))
        #expect(script.kinds == ["tap:up"])
        #expect(script.gestures[0].at == .milliseconds(200))
        script.advance(to: .seconds(2))
        #expect(script.kinds == ["tap:up", "tap:down"])
    }

    @Test("a triple press slower than repeats is a double, then a tap of the third, as on a device")
    func triple() {
        var script = GestureScript()
        for index in 0..<3 { script.press(.up, at: .milliseconds(180 * index)) }
        script.advance(to: .seconds(2))
        #expect(script.kinds == ["double:up", "tap:up"])
        #expect(script.gestures.map(\.gesture.seq) == [2, 3])
    }

    @Test("a lone press cut short by the server going away is no tap")
    func interruptedTap() {
        var script = GestureScript()
        script.press(.up, at: .zero)
        script.interrupt(at: .milliseconds(300))
        script.advance(to: .seconds(2))
        #expect(script.kinds.isEmpty)
    }

    @Test("a tap's delay with every gesture looked for: the double window on a device; on the sink, the longer of it and the repeat delay")
    func tapDelay() {
        let thresholds = GestureDetector.Thresholds(repeatDelay: .milliseconds(300), doubleWindow: .milliseconds(350))
        #expect(thresholds.tapDelay(on: .input, lookingFor: .all) == .milliseconds(350))
        #expect(thresholds.tapDelay(on: .sink, lookingFor: .all) == .milliseconds(350))
        #expect(GestureDetector.Thresholds().tapDelay(on: .input, lookingFor: .all) == .milliseconds(400))
        #expect(GestureDetector.Thresholds().tapDelay(on: .sink, lookingFor: .all) == .milliseconds(800))
    }
}
