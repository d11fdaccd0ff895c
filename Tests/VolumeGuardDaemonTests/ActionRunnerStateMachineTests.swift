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

    func up(_ seq: UInt64) -> Press { Press(seq: seq, direction: .up, count: 1, sink: "s") }

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    /// The identity of `action`, the `index`th of its name.
    func id(_ action: Action, _ index: Int = 0) -> Machine.Identity { Machine.Identity(name: action.name, index: index) }

    @Test("A press starts the actions it calls for, and no other")
    func starts() {
        var machine = Machine(actions: [photo, print], limit: 4)
        #expect(machine.press(up(1), time: "t1", at: at(0)) == [.start(photo, as: id(photo))])
        #expect(machine.running == 1)
        #expect(machine.report.map(\.last?.result) == [.running, nil])
    }

    @Test("A press while the action still runs is dropped, not queued")
    func stillRunning() {
        var machine = Machine(actions: [print], limit: 4)
        let down = Press(seq: 1, direction: .down, count: 1, sink: "s")
        #expect(machine.press(down, time: "t", at: at(0)) == [.start(print, as: id(print))])
        #expect(machine.press(down, time: "t", at: at(50)) == [.drop(print, .running)])
        machine.ended(id(print), .exited(0), at: at(100))
        #expect(machine.press(down, time: "t", at: at(150)) == [.start(print, as: id(print))], "no cooldown: it starts again once it ended")
    }

    @Test("A quick double press or a bounce takes one photo: the cooldown counts from the last start")
    func cooldown() {
        var machine = Machine(actions: [photo], limit: 4)
        #expect(machine.press(up(1), time: "t", at: at(0)) == [.start(photo, as: id(photo))])
        machine.ended(id(photo), .exited(0), at: at(100))
        #expect(machine.press(up(2), time: "t", at: at(300)) == [.drop(photo, .coolingDown(remaining: .milliseconds(700)))])
        #expect(machine.press(up(3), time: "t", at: at(999)) == [.drop(photo, .coolingDown(remaining: .milliseconds(1)))])
        #expect(machine.press(up(4), time: "t", at: at(1000)) == [.start(photo, as: id(photo))], "a press at human pace takes its photo")
        #expect(machine.report == [ActionMessage(name: "photo", runs: 2, dropped: 2, last: ActionRunMessage(seq: 4, time: "t", result: .running))])
    }

    @Test("At the limit, a press is dropped for the actions that would exceed it")
    func limit() {
        let actions = (1...3).map { Action(name: "a\($0)", command: ["true"], on: [.up]) }
        var machine = Machine(actions: actions, limit: 2)
        #expect(
            machine.press(up(1), time: "t", at: at(0)) == [
                .start(actions[0], as: id(actions[0])), .start(actions[1], as: id(actions[1])), .drop(actions[2], .overLimit),
            ])
        machine.ended(id(actions[0]), .exited(0), at: at(10))
        #expect(
            machine.press(up(2), time: "t", at: at(20)) == [.start(actions[0], as: id(actions[0])), .drop(actions[1], .running), .drop(actions[2], .overLimit)])
    }

    @Test("Status tells each action's last run: its exit status, signal, timeout or why it could not start")
    func outcomes() {
        let actions = (1...4).map { Action(name: "a\($0)", command: ["x"], on: [.up]) }
        var machine = Machine(actions: actions, limit: 4)
        _ = machine.press(up(9), time: "2026-11-27T10:00:00.000Z", at: at(0))
        machine.ended(id(actions[0]), .exited(3), at: at(1234))
        machine.ended(id(actions[1]), .signaled(9), at: at(10))
        machine.ended(id(actions[2]), .timedOut, at: at(10_000))
        machine.ended(id(actions[3]), .failed("no such program"), at: at(1))
        let time = "2026-11-27T10:00:00.000Z"
        #expect(
            machine.report.map(\.last) == [
                ActionRunMessage(seq: 9, time: time, result: .exited, status: 3, seconds: 1.23),
                ActionRunMessage(seq: 9, time: time, result: .signaled, signal: 9, seconds: 0.01),
                ActionRunMessage(seq: 9, time: time, result: .timedOut, seconds: 10),
                ActionRunMessage(seq: 9, time: time, result: .failed, error: "no such program"),
            ])
    }

    @Test("A reload keeps the record of an action that stays; one removed while running still counts until it ends")
    func reload() {
        var machine = Machine(actions: [photo, print], limit: 1)
        _ = machine.press(up(1), time: "t", at: at(0))
        machine.replace([print])
        #expect(machine.report.map(\.name) == ["print"])
        let down = Press(seq: 2, direction: .down, count: 1, sink: "s")
        #expect(machine.press(down, time: "t", at: at(10)) == [.drop(print, .overLimit)], "the removed photo still runs")
        machine.ended(id(photo), .exited(0), at: at(20))
        #expect(machine.press(down, time: "t", at: at(30)) == [.start(print, as: id(print))])
        machine.replace([photo, print])
        #expect(machine.report.first?.runs == 0, "a removed action's record is gone once it ended")
    }

    @Test("A reload that edits a running action keeps it: no second copy starts, and its cooldown goes on")
    func reloadEdits() {
        var machine = Machine(actions: [photo], limit: 4)
        #expect(machine.press(up(1), time: "t", at: at(0)) == [.start(photo, as: id(photo))])
        var edited = photo
        edited.timeout = .seconds(30)
        edited.command = ["gphoto2", "--capture-image-and-download"]
        machine.replace([edited])
        #expect(machine.press(up(2), time: "t", at: at(100)) == [.drop(edited, .running)])
        machine.ended(id(photo), .exited(0), at: at(200))
        #expect(machine.press(up(3), time: "t", at: at(300)) == [.drop(edited, .coolingDown(remaining: .milliseconds(700)))])
        #expect(machine.report.map(\.runs) == [1])
    }

    @Test("Two tables alike are two actions, each with its own record")
    func twins() {
        var machine = Machine(actions: [print, print], limit: 4)
        let down = Press(seq: 1, direction: .down, count: 1, sink: "s")
        #expect(machine.press(down, time: "t", at: at(0)) == [.start(print, as: id(print, 0)), .start(print, as: id(print, 1))])
        machine.ended(id(print, 1), .exited(0), at: at(10))
        #expect(machine.press(down, time: "t", at: at(20)) == [.drop(print, .running), .start(print, as: id(print, 1))])
        #expect(machine.report.map(\.runs) == [1, 2])
    }
}
