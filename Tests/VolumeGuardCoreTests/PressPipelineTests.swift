import GuardProtocol
import Testing

@testable import VolumeGuardCore

@Suite("The press pipeline: one for every source")
struct PressPipelineTests {
    var pipeline = PressPipeline()
    let remote = DeviceRef(name: "AB Shutter3 Consumer Control", node: "/dev/input/event6")

    func published(_ actions: [PressPipeline.Action]) -> [Press] {
        actions.compactMap { if case .publish(let press) = $0 { press } else { nil } }
    }

    func gestures(_ actions: [PressPipeline.Action]) -> [GestureKind] {
        actions.compactMap { if case .gesture(let gesture) = $0 { gesture.kind } else { nil } }
    }

    @Test("Presses of both sources share one seq, and the volume keys' counts")
    mutating func oneSeq() {
        let sink = published(pipeline.sinkPressed(.up, count: 2, sink: "guard_a", at: .zero))
        let key = published(pipeline.keyDown(115, on: remote, at: .seconds(1)))
        let enter = published(pipeline.keyDown(28, on: remote, at: .seconds(2)))
        #expect(sink == [Press(seq: 1, direction: .up, count: 2, sink: "guard_a")])
        #expect(key == [Press(seq: 2, direction: .up, key: 115, count: 1, origin: .device(remote))])
        #expect(enter == [Press(seq: 3, direction: nil, key: 28, count: 1, origin: .device(remote))])
        #expect(pipeline.lastSeq == 3)
        #expect(pipeline.counts.up == 3)
    }

    @Test("A paired client's press takes the next seq, counts, and its named gesture follows at once")
    mutating func clientPress() {
        _ = pipeline.sinkPressed(.up, count: 1, sink: "guard_a", at: .zero)
        let tap = pipeline.clientPressed(.up, key: nil, as: .tap, client: "tablet")
        #expect(published(tap) == [Press(seq: 2, direction: .up, count: 1, origin: .client("tablet"))])
        #expect(gestures(tap) == [.tap])
        #expect(gestures(pipeline.clientPressed(.down, key: nil, as: .double, client: "tablet")) == [.double])
        #expect(gestures(pipeline.clientPressed(.up, key: nil, as: .hold, client: "tablet")) == [.holdStart, .holdEnd])
        let enter = pipeline.clientPressed(nil, key: 28, as: .press, client: "phone")
        #expect(published(enter) == [Press(seq: 5, direction: nil, key: 28, count: 1, origin: .client("phone"))])
        #expect(gestures(enter).isEmpty, "a press alone: no gesture")
        #expect(pipeline.counts.up == 3 && pipeline.counts.down == 1)
    }

    @Test("A release carries its press's seq, how long the key was down, and why it ended")
    mutating func release() {
        _ = pipeline.keyDown(115, on: remote, at: .seconds(1))
        let up = pipeline.keyUp(115, on: remote, cause: .keyUp, at: .seconds(1) + .milliseconds(120))
        #expect(up.first == .release(Release(seq: 1, direction: .up, key: 115, device: remote, cause: .keyUp, held: .milliseconds(120))))
        #expect(pipeline.keyUp(115, on: remote, cause: .keyUp, at: .seconds(2)).isEmpty, "a key not down has nothing to release")
    }

    @Test("A device's key held past the hold delay is a hold, ended by its release with the release's cause")
    mutating func hold() {
        let down = pipeline.keyDown(115, on: remote, at: .zero)
        #expect(down.last == .wakeUp(after: GestureDetector.Thresholds().holdDelay))
        #expect(gestures(pipeline.wakeUp(at: .milliseconds(499))).isEmpty)
        #expect(gestures(pipeline.wakeUp(at: .milliseconds(500))) == [.holdStart])
        let up = pipeline.keyUp(115, on: remote, cause: .deviceGone, at: .seconds(2))
        guard case .gesture(let end)? = up.last else { Issue.record("no hold end"); return }
        #expect(end.kind == .holdEnd)
        #expect(end.cause == .deviceGone)
        #expect(end.seq == 1)
    }

    @Test("A second down soon after a short press is a double press, told at once; a third starts afresh, a tap")
    mutating func double() {
        _ = pipeline.keyDown(28, on: remote, at: .zero)
        _ = pipeline.keyUp(28, on: remote, cause: .keyUp, at: .milliseconds(80))
        #expect(gestures(pipeline.keyDown(28, on: remote, at: .milliseconds(300))) == [.double])
        #expect(gestures(pipeline.keyUp(28, on: remote, cause: .keyUp, at: .milliseconds(380))).isEmpty, "a double's second is no tap")
        #expect(gestures(pipeline.wakeUp(at: .milliseconds(450))).isEmpty, "nor is its first")
        #expect(gestures(pipeline.keyDown(28, on: remote, at: .milliseconds(500))).isEmpty)
        _ = pipeline.keyUp(28, on: remote, cause: .keyUp, at: .milliseconds(580))
        #expect(gestures(pipeline.wakeUp(at: .milliseconds(900))) == [.tap], "the third press, with no fourth")
        #expect(gestures(pipeline.keyDown(28, on: remote, at: .seconds(2))).isEmpty, "too late for a double")
    }

    @Test("A short press that no second down follows is a tap, told once the double window has passed, once")
    mutating func tap() {
        _ = pipeline.keyDown(115, on: remote, at: .zero)
        let up = pipeline.keyUp(115, on: remote, cause: .keyUp, at: .milliseconds(80))
        #expect(gestures(up).isEmpty)
        #expect(up.last == .wakeUp(after: .milliseconds(320)))
        #expect(gestures(pipeline.wakeUp(at: .milliseconds(399))).isEmpty)
        let told = pipeline.wakeUp(at: .milliseconds(400))
        guard case .gesture(let tap)? = told.first else { Issue.record("no tap"); return }
        #expect(tap == Gesture(kind: .tap, direction: .up, key: 115, seq: 1, presses: 1, origin: .device(remote)))
        #expect(gestures(pipeline.wakeUp(at: .milliseconds(600))).isEmpty, "told once")
    }

    @Test("A press held past the double window and let go before the hold delay is a tap, told at its release")
    mutating func longTap() {
        _ = pipeline.keyDown(115, on: remote, at: .zero)
        #expect(gestures(pipeline.wakeUp(at: .milliseconds(420))).isEmpty, "still down")
        #expect(gestures(pipeline.keyUp(115, on: remote, cause: .keyUp, at: .milliseconds(450))) == [.tap])
        #expect(gestures(pipeline.wakeUp(at: .milliseconds(500))).isEmpty, "no hold once it is up")
    }

    @Test("A press whose release was lost to its device going is no tap")
    mutating func goneIsNoTap() {
        _ = pipeline.keyDown(115, on: remote, at: .zero)
        #expect(gestures(pipeline.keyUp(115, on: remote, cause: .deviceGone, at: .milliseconds(100))).isEmpty)
        #expect(gestures(pipeline.wakeUp(at: .seconds(1))).isEmpty)
    }

    @Test("A hold is no tap")
    mutating func holdIsNoTap() {
        _ = pipeline.keyDown(115, on: remote, at: .zero)
        #expect(gestures(pipeline.wakeUp(at: .milliseconds(500))) == [.holdStart])
        #expect(gestures(pipeline.keyUp(115, on: remote, cause: .keyUp, at: .milliseconds(700))) == [.holdEnd])
        #expect(gestures(pipeline.wakeUp(at: .seconds(2))).isEmpty)
    }

    @Test("A tap whose wake-up is late is told at the key's next down, before it can be taken for a double's first")
    mutating func lateTap() {
        _ = pipeline.keyDown(115, on: remote, at: .zero)
        _ = pipeline.keyUp(115, on: remote, cause: .keyUp, at: .milliseconds(80))
        #expect(gestures(pipeline.keyDown(115, on: remote, at: .milliseconds(700))) == [.tap])
    }

    @Test("A hold is no first half of a double press")
    mutating func holdThenPress() {
        _ = pipeline.keyDown(115, on: remote, at: .zero)
        _ = pipeline.wakeUp(at: .milliseconds(500))
        _ = pipeline.keyUp(115, on: remote, cause: .keyUp, at: .milliseconds(600))
        #expect(gestures(pipeline.keyDown(115, on: remote, at: .milliseconds(700))).isEmpty)
    }

    @Test("The sink's holds are guessed from repeats and end when the sink's presses are interrupted")
    mutating func sinkHold() {
        var actions: [PressPipeline.Action] = []
        for index in 0..<6 { actions += pipeline.sinkPressed(.up, count: 1, sink: "guard_a", at: .milliseconds(300 + 33 * index)) }
        #expect(gestures(actions) == [.holdStart])
        #expect(gestures(pipeline.sinkInterrupted(at: .seconds(1))) == [.holdEnd])
    }

    @Test("New thresholds end a guessed hold at once and judge the next presses")
    mutating func reconfigure() {
        for index in 0..<4 { _ = pipeline.sinkPressed(.up, count: 1, sink: "guard_a", at: .milliseconds(50 * index)) }
        let faster = GestureDetector.Configuration(thresholds: .init(repeatPeriod: .milliseconds(20)))
        #expect(gestures(pipeline.reconfigure(faster, at: .milliseconds(200))) == [.holdEnd])
        #expect(pipeline.reconfigure(faster, at: .milliseconds(200)).isEmpty, "the same again changes nothing")
    }
}
