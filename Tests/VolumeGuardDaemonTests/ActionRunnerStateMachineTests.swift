import GuardProtocol
import GuardSettings
import Testing
import VolumeGuardCore

@testable import VolumeGuardDaemon

@Suite("Which presses start an action")
struct ActionRunnerStateMachineTests {
    typealias Machine = ActionRunner.StateMachine

    let start = ContinuousClock.now
    let photo = Action(name: "photo", command: ["gphoto2", "--capture-image"], on: [.up], cooldown: .seconds(1))
    let print = Action(name: "print", command: ["lp"], on: [.down])

    func up(_ seq: UInt64) -> Trigger { Trigger(Press(seq: seq, direction: .up, count: 1, sink: "s")) }

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    /// The identity of `action`, the `index`th of its name.
    func id(_ action: Action, _ index: Int = 0) -> Machine.Identity { Machine.Identity(name: action.name, index: index) }

    @Test("A press starts the actions it calls for, and no other")
    func starts() {
        var machine = Machine(actions: [photo, print], limit: 4)
        #expect(machine.trigger(up(1), time: "t1", at: at(0)) == [.start(photo, as: id(photo))])
        #expect(machine.running == 1)
        #expect(machine.report(gestures: .init(), sources: .sink).map(\.last?.result) == [.running, nil])
    }

    @Test("A press while the action still runs is dropped, not queued")
    func stillRunning() {
        var machine = Machine(actions: [print], limit: 4)
        let down = Trigger(Press(seq: 1, direction: .down, count: 1, sink: "s"))
        #expect(machine.trigger(down, time: "t", at: at(0)) == [.start(print, as: id(print))])
        #expect(machine.trigger(down, time: "t", at: at(50)) == [.drop(print, .running)])
        machine.ended(id(print), .exited(0), at: at(100))
        #expect(machine.trigger(down, time: "t", at: at(150)) == [.start(print, as: id(print))], "no cooldown: it starts again once it ended")
    }

    @Test("A quick double press or a bounce takes one photo: the cooldown counts from the last start")
    func cooldown() {
        var machine = Machine(actions: [photo], limit: 4)
        #expect(machine.trigger(up(1), time: "t", at: at(0)) == [.start(photo, as: id(photo))])
        machine.ended(id(photo), .exited(0), at: at(100))
        #expect(machine.trigger(up(2), time: "t", at: at(300)) == [.drop(photo, .coolingDown(remaining: .milliseconds(700)))])
        #expect(machine.trigger(up(3), time: "t", at: at(999)) == [.drop(photo, .coolingDown(remaining: .milliseconds(1)))])
        #expect(machine.trigger(up(4), time: "t", at: at(1000)) == [.start(photo, as: id(photo))], "a press at human pace takes its photo")
        #expect(
            machine.report(gestures: .init(), sources: .sink) == [
                ActionMessage(name: "photo", runs: 2, dropped: 2, last: ActionRunMessage(seq: 4, time: "t", result: .running))
            ])
    }

    @Test("At the limit, a press is dropped for the actions that would exceed it")
    func limit() {
        let actions = (1...3).map { Action(name: "a\($0)", command: ["true"], on: [.up]) }
        var machine = Machine(actions: actions, limit: 2)
        #expect(
            machine.trigger(up(1), time: "t", at: at(0)) == [
                .start(actions[0], as: id(actions[0])), .start(actions[1], as: id(actions[1])), .drop(actions[2], .overLimit),
            ])
        machine.ended(id(actions[0]), .exited(0), at: at(10))
        #expect(
            machine.trigger(up(2), time: "t", at: at(20)) == [
                .start(actions[0], as: id(actions[0])), .drop(actions[1], .running), .drop(actions[2], .overLimit),
            ])
    }

    @Test("Status tells each action's last run: its exit status, signal, timeout or why it could not start")
    func outcomes() {
        let actions = (1...4).map { Action(name: "a\($0)", command: ["x"], on: [.up]) }
        var machine = Machine(actions: actions, limit: 4)
        _ = machine.trigger(up(9), time: "2026-11-27T10:00:00.000Z", at: at(0))
        machine.ended(id(actions[0]), .exited(3), at: at(1234))
        machine.ended(id(actions[1]), .signaled(9), at: at(10))
        machine.ended(id(actions[2]), .timedOut, at: at(10_000))
        machine.ended(id(actions[3]), .failed("no such program"), at: at(1))
        let time = "2026-11-27T10:00:00.000Z"
        #expect(
            machine.report(gestures: .init(), sources: .sink).map(\.last) == [
                ActionRunMessage(seq: 9, time: time, result: .exited, status: 3, seconds: 1.23),
                ActionRunMessage(seq: 9, time: time, result: .signaled, signal: 9, seconds: 0.01),
                ActionRunMessage(seq: 9, time: time, result: .timedOut, seconds: 10),
                ActionRunMessage(seq: 9, time: time, result: .failed, error: "no such program"),
            ])
    }

    @Test("A reload keeps the record of an action that stays; one removed while running still counts until it ends")
    func reload() {
        var machine = Machine(actions: [photo, print], limit: 1)
        _ = machine.trigger(up(1), time: "t", at: at(0))
        machine.replace([print])
        #expect(machine.report(gestures: .init(), sources: .sink).map(\.name) == ["print"])
        let down = Trigger(Press(seq: 2, direction: .down, count: 1, sink: "s"))
        #expect(machine.trigger(down, time: "t", at: at(10)) == [.drop(print, .overLimit)], "the removed photo still runs")
        machine.ended(id(photo), .exited(0), at: at(20))
        #expect(machine.trigger(down, time: "t", at: at(30)) == [.start(print, as: id(print))])
        machine.replace([photo, print])
        #expect(machine.report(gestures: .init(), sources: .sink).first?.runs == 0, "a removed action's record is gone once it ended")
    }

    @Test("A reload that edits a running action keeps it: no second copy starts, and its cooldown goes on")
    func reloadEdits() {
        var machine = Machine(actions: [photo], limit: 4)
        #expect(machine.trigger(up(1), time: "t", at: at(0)) == [.start(photo, as: id(photo))])
        var edited = photo
        edited.timeout = .seconds(30)
        edited.command = ["gphoto2", "--capture-image-and-download"]
        machine.replace([edited])
        #expect(machine.trigger(up(2), time: "t", at: at(100)) == [.drop(edited, .running)])
        machine.ended(id(photo), .exited(0), at: at(200))
        #expect(machine.trigger(up(3), time: "t", at: at(300)) == [.drop(edited, .coolingDown(remaining: .milliseconds(700)))])
        #expect(machine.report(gestures: .init(), sources: .sink).map(\.runs) == [1])
    }

    @Test("Two tables alike are two actions, each with its own record")
    func twins() {
        var machine = Machine(actions: [print, print], limit: 4)
        let down = Trigger(Press(seq: 1, direction: .down, count: 1, sink: "s"))
        #expect(machine.trigger(down, time: "t", at: at(0)) == [.start(print, as: id(print, 0)), .start(print, as: id(print, 1))])
        machine.ended(id(print, 1), .exited(0), at: at(10))
        #expect(machine.trigger(down, time: "t", at: at(20)) == [.drop(print, .running), .start(print, as: id(print, 1))])
        #expect(machine.report(gestures: .init(), sources: .sink).map(\.runs) == [1, 2])
    }

    /// The `kind` gesture of volume up on the sink, completed by press `seq`.
    func gesture(_ kind: GestureKind, _ seq: UInt64) -> Trigger {
        Trigger(Gesture(kind: kind, direction: .up, seq: seq, presses: kind == .double ? 2 : 1, origin: .sink("s")))!
    }

    @Test("One key, several jobs: its tap, hold and double each start their own action alone, and its press none of them")
    func gestures() {
        let tap = Action(name: "tap", command: ["x"], on: [.up], gesture: .tap)
        let hold = Action(name: "hold", command: ["x"], on: [.up], gesture: .hold)
        let double = Action(name: "double", command: ["x"], on: [.up], gesture: .double)
        var machine = Machine(actions: [tap, hold, double], limit: 4)
        #expect(machine.trigger(up(1), time: "t", at: at(0)).isEmpty)
        #expect(machine.trigger(gesture(.tap, 1), time: "t", at: at(800)) == [.start(tap, as: id(tap))])
        #expect(machine.trigger(gesture(.holdStart, 5), time: "t", at: at(3000)) == [.start(hold, as: id(hold))])
        #expect(machine.trigger(gesture(.double, 9), time: "t", at: at(6000)) == [.start(double, as: id(double))])
        #expect(machine.report(gestures: .init(), sources: .sink).map(\.runs) == [1, 1, 1])
        #expect(machine.report(gestures: .init(), sources: .sink).map(\.last?.seq) == [1, 5, 9])
    }

    @Test("A gesture is dropped for an action still running or cooling down, as a press is")
    func gestureDrops() {
        let hold = Action(name: "hold", command: ["x"], on: [.up], gesture: .hold, cooldown: .seconds(2))
        var machine = Machine(actions: [hold], limit: 4)
        #expect(machine.trigger(gesture(.holdStart, 1), time: "t", at: at(0)) == [.start(hold, as: id(hold))])
        #expect(machine.trigger(gesture(.holdStart, 9), time: "t", at: at(500)) == [.drop(hold, .running)])
        machine.ended(id(hold), .exited(0), at: at(600))
        #expect(machine.trigger(gesture(.holdStart, 20), time: "t", at: at(1500)) == [.drop(hold, .coolingDown(remaining: .milliseconds(500)))])
    }

    @Test("Status names an action's gesture, and for a tap the delay from each source it hears")
    func tapDelay() {
        let anySource = Action(name: "a", command: ["x"], gesture: .tap)
        let remote = Action(name: "r", command: ["x"], source: .input, gesture: .tap)
        let double = Action(name: "d", command: ["x"], gesture: .double)
        let actions = [anySource, remote, double, photo]
        let machine = Machine(actions: actions, limit: 4)
        let thresholds = GestureDetector.Thresholds(repeatDelay: .milliseconds(600), doubleWindow: .milliseconds(300))
        let both = machine.report(gestures: .init(thresholds: thresholds, uses: GestureUses(actions: actions)), sources: .both)
        #expect(both.map(\.gesture) == [.tap, .tap, .double, nil])
        #expect(both.map(\.tapDelay) == [TapDelayMessage(input: 300, sink: 300), TapDelayMessage(input: 300), nil, nil])
        let sinkOnly = machine.report(gestures: .init(uses: GestureUses(actions: actions)), sources: .sink)
        #expect(sinkOnly.first?.tapDelay == TapDelayMessage(sink: 400), "a double looked for, no hold: the double window")
    }

    @Test("Status tells a tap's delay as the gestures looked for on its keys make it")
    func tapDelayLooksFor() {
        // As the config file makes `on = "up"`: no other key of a device.
        let tap = Action(name: "photo", command: ["x"], on: [.up], keys: [], gesture: .tap)
        let hold = Action(name: "collage", command: ["x"], on: [.up], keys: [], gesture: .hold)
        let elsewhere = Action(name: "d", command: ["x"], on: [.down], keys: [], gesture: .double)
        func delay(_ actions: [Action]) -> TapDelayMessage? {
            Machine(actions: actions, limit: 4).report(gestures: .init(uses: GestureUses(actions: actions)), sources: .both).first?.tapDelay
        }
        #expect(delay([tap, hold, elsewhere]) == TapDelayMessage(input: 0, sink: 800, release: true), "a hold: the repeat delay, the release")
        #expect(delay([tap, elsewhere]) == TapDelayMessage(input: 0, sink: 0), "nothing else on its key: at once")
    }
}
