import GuardProtocol
import Testing

@testable import VolumeGuardCore

/// A tap waits only for the gestures configured on its key: the photobooth-app example's key (a tap, a
/// hold, no double), one with a double too, and one with a tap alone, on both sources.
@Suite("Gestures looked for as configured")
struct GestureUsesTests {
    static let tap = GestureUses.Use(.tap, PressMatch(directions: [.up], keys: [28]))
    static let hold = GestureUses.Use(.hold, PressMatch(directions: [.up], keys: [28]))
    static let double = GestureUses.Use(.double, PressMatch(directions: [.up], keys: [28]))
    static let booth = GestureUses([tap, hold])
    let remote = DeviceRef(name: "AB Shutter3", node: "/dev/input/event6")

    func script(_ uses: GestureUses) -> GestureScript {
        var script = GestureScript()
        script.detector = GestureDetector(configuration: .init(uses: uses))
        return script
    }

    func gestures(_ actions: [PressPipeline.Action]) -> [GestureKind] {
        actions.compactMap { if case .gesture(let gesture) = $0 { gesture.kind } else { nil } }
    }

    @Test("On the sink, two presses 150 ms apart on a key with no double configured are two taps, once no repeat follows")
    func sinkTwoTaps() {
        var script = script(Self.booth)
        script.press(.up, at: .seconds(1))
        script.press(.up, at: .seconds(1) + .milliseconds(150))
        script.advance(to: .seconds(3))
        #expect(script.kinds == ["tap:up", "tap:up"])
        #expect(script.gestures.map(\.gesture.seq) == [1, 2])
        #expect(script.gestures.map(\.at) == [.milliseconds(1300), .milliseconds(1300)], "a repeat period after the second")
    }

    @Test("On the sink, two presses 150 ms apart on a key with a double configured are one double")
    func sinkDouble() {
        var script = script(GestureUses([Self.tap, Self.hold, Self.double]))
        script.press(.up, at: .seconds(1))
        script.press(.up, at: .seconds(1) + .milliseconds(150))
        script.advance(to: .seconds(3))
        #expect(script.kinds == ["double:up"])
    }

    @Test("On the sink, a tap waits for a repeat only with a hold configured, for a second press only with a double, else for nothing")
    func sinkTapDelay() {
        for (uses, delay) in [(Self.booth, 800), (GestureUses([Self.tap, Self.double]), 400), (GestureUses([Self.tap]), 0)] {
            var script = script(uses)
            script.press(.up, at: .seconds(1))
            script.advance(to: .seconds(3))
            #expect(script.kinds == ["tap:up"])
            #expect(script.gestures.first?.at == .seconds(1) + .milliseconds(delay))
        }
    }

    @Test("On the sink, a held key with no hold configured is told as no hold, and its repeats are no taps")
    func sinkUnwantedHold() {
        var script = script(GestureUses([Self.tap, Self.double]))
        let end = script.hold(.up, from: .zero, delay: .milliseconds(250), period: .milliseconds(33), repeats: 10)
        script.advance(to: end + .seconds(1))
        #expect(script.kinds.isEmpty)
    }

    @Test("On the sink, a key no action takes a gesture of looks for every gesture, for the subscribers")
    func sinkOtherKey() {
        var script = script(Self.booth)
        script.press(.down, at: .seconds(1))
        script.press(.down, at: .seconds(1) + .milliseconds(150))
        script.advance(to: .seconds(3))
        #expect(script.kinds == ["double:down"])
    }

    @Test("On a device, two presses 150 ms apart on a key with a tap and a hold configured are two taps, each told at its release")
    func deviceTwoTaps() {
        var pipeline = PressPipeline(gestures: .init(uses: Self.booth))
        _ = pipeline.keyDown(28, on: remote, at: .zero)
        #expect(gestures(pipeline.keyUp(28, on: remote, cause: .keyUp, at: .milliseconds(80))) == [.tap], "no double window to wait for")
        #expect(gestures(pipeline.keyDown(28, on: remote, at: .milliseconds(150))).isEmpty, "no double")
        #expect(gestures(pipeline.keyUp(28, on: remote, cause: .keyUp, at: .milliseconds(230))) == [.tap])
        #expect(gestures(pipeline.wakeUp(at: .seconds(1))).isEmpty)
    }

    @Test("On a device, two presses 150 ms apart on a key with a double configured are one double")
    func deviceDouble() {
        var pipeline = PressPipeline(gestures: .init(uses: GestureUses([Self.tap, Self.hold, Self.double])))
        _ = pipeline.keyDown(28, on: remote, at: .zero)
        #expect(gestures(pipeline.keyUp(28, on: remote, cause: .keyUp, at: .milliseconds(80))).isEmpty)
        #expect(gestures(pipeline.keyDown(28, on: remote, at: .milliseconds(150))) == [.double])
        _ = pipeline.keyUp(28, on: remote, cause: .keyUp, at: .milliseconds(230))
        #expect(gestures(pipeline.wakeUp(at: .seconds(1))).isEmpty)
    }

    @Test("On a device, a key with a hold configured still holds, and its hold is no tap")
    func deviceHold() {
        var pipeline = PressPipeline(gestures: .init(uses: Self.booth))
        _ = pipeline.keyDown(28, on: remote, at: .zero)
        #expect(gestures(pipeline.wakeUp(at: .milliseconds(500))) == [.holdStart])
        #expect(gestures(pipeline.keyUp(28, on: remote, cause: .keyUp, at: .milliseconds(700))) == [.holdEnd])
    }

    @Test("On a device, a tap with a double but no hold configured is told the double window after its down, even while the key is down")
    func deviceNoHold() {
        var pipeline = PressPipeline(gestures: .init(uses: GestureUses([Self.tap, Self.double])))
        #expect(pipeline.keyDown(28, on: remote, at: .zero).last == .wakeUp(after: .milliseconds(400)))
        #expect(gestures(pipeline.wakeUp(at: .milliseconds(400))) == [.tap])
        #expect(gestures(pipeline.wakeUp(at: .seconds(1))).isEmpty, "no hold looked for")
        #expect(gestures(pipeline.keyUp(28, on: remote, cause: .keyUp, at: .seconds(2))).isEmpty, "told once")
    }

    @Test("On a device, a tap with neither a hold nor a double configured is told at its down")
    func deviceTapAlone() {
        var pipeline = PressPipeline(gestures: .init(uses: GestureUses([Self.tap])))
        let down = pipeline.keyDown(28, on: remote, at: .zero)
        #expect(gestures(down) == [.tap])
        #expect(!down.contains { if case .wakeUp = $0 { true } else { false } }, "nothing left to look for")
        #expect(gestures(pipeline.keyUp(28, on: remote, cause: .keyUp, at: .milliseconds(80))).isEmpty)
    }

    @Test("What a key looks for: the gestures of the actions that take its presses; every gesture where none does")
    func lookedFor() {
        let uses = GestureUses([Self.tap, Self.hold, .init(.press, PressMatch(directions: [.down]))])
        #expect(uses.lookedFor(direction: .up, key: 115, origin: .sink("s")) == .init(hold: true, double: false))
        #expect(uses.lookedFor(direction: nil, key: 28, origin: .device(remote)) == .init(hold: true, double: false))
        #expect(uses.lookedFor(direction: .down, key: 114, origin: .device(remote)) == .all, "an action on every press looks for none")
        #expect(GestureUses().lookedFor(direction: .up, key: nil, origin: .sink("s")) == .all)
    }
}
