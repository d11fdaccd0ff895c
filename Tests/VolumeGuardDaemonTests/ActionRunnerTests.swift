import Foundation
import GuardProtocol
import GuardSettings
import Logging
import Testing
import VolumeGuardCore

@testable import VolumeGuardDaemon

@Suite("Running actions", .timeLimit(.minutes(1)))
struct ActionRunnerTests {
    /// Runs `body` with a runner of `actions` serving, then stops it as a shutdown would.
    func withRunner(_ actions: [Action], _ body: (ActionRunner, LogLines) async throws -> Void) async rethrows {
        let lines = LogLines()
        let runner = ActionRunner(actions: actions, logger: lines.logger())
        let serving = Task { await runner.run() }
        defer { serving.cancel() }
        try await body(runner, lines)
    }

    let press = Trigger(Press(seq: 7, direction: .up, count: 2, sink: "bluez_output.remote"))

    @Test("The press is in the command's environment; its output goes to the log")
    func environment() async throws {
        await withRunner([Action(command: ["/usr/bin/env"], on: [.up])]) { runner, lines in
            runner.run(for: press)
            // env prints in no set order, and its lines reach the log one by one: each is waited for.
            for expected in ["VOLUME_GUARD_SINK=bluez_output.remote", "VOLUME_GUARD_SEQ=7", "VOLUME_GUARD_DIRECTION=up", "VOLUME_GUARD_COUNT=2"] {
                #expect(await eventually { lines.all.contains("info \(expected) action=env seq=7\n") }, "\(lines.all)")
            }
        }
    }

    @Test("Only presses in the action's directions run it")
    func directions() async throws {
        let file = temporaryPath()
        try await withRunner([Action(shell: "echo $VOLUME_GUARD_DIRECTION >> \(file)", on: [.down, .mute])]) { runner, _ in
            for (seq, direction) in [Direction.up, .down, .up, .mute].enumerated() {
                runner.run(for: Trigger(Press(seq: UInt64(seq + 1), direction: direction, count: 1, sink: "s")))
                try await Task.sleep(for: .milliseconds(300))
            }
            #expect(await eventually { (try? String(contentsOfFile: file, encoding: .utf8)) == "down\nmute\n" })
        }
    }

    @Test("A device's keys: `on` names them, `source` and `device` narrow an action, and the device is in the environment")
    func deviceKeys() async throws {
        let remote = DeviceRef(name: "AB Shutter3 Keyboard", node: "/dev/input/event5")
        let enter = Trigger(Press(seq: 1, direction: nil, key: 28, count: 1, origin: .device(remote)))
        let up = Trigger(Press(seq: 2, direction: .up, key: 115, count: 1, origin: .device(remote)))
        let sinkUp = Trigger(Press(seq: 3, direction: .up, count: 1, sink: "s"))
        #expect(Action(command: ["x"]).runs(on: enter), "no `on`: every press")
        #expect(!Action(command: ["x"], on: [.up], keys: []).runs(on: enter))
        #expect(Action(command: ["x"], on: [], keys: [28]).runs(on: enter))
        #expect(Action(command: ["x"], on: [.up], source: .input).runs(on: up))
        #expect(!Action(command: ["x"], on: [.up], source: .input).runs(on: sinkUp))
        #expect(Action(command: ["x"], device: "AB Shutter3").runs(on: up), "the remote's name takes its parts")
        #expect(!Action(command: ["x"], device: "AB Shutter").runs(on: up))
        #expect(!Action(command: ["x"], device: "AB Shutter3").runs(on: sinkUp))
        await withRunner([Action(command: ["/usr/bin/env"])]) { runner, lines in
            runner.run(for: enter)
            // Once it is done, its every line is in the log (env prints in no set order).
            #expect(await eventually { lines.text.contains("action done") })
            for expected in [
                "VOLUME_GUARD_DEVICE_PATH=/dev/input/event5", "VOLUME_GUARD_KEY=KEY_ENTER", "VOLUME_GUARD_SOURCE=input",
                "VOLUME_GUARD_DEVICE=AB Shutter3 Keyboard",
            ] {
                #expect(lines.text.contains(expected), "\(lines.all)")
            }
            #expect(!lines.text.contains("VOLUME_GUARD_DIRECTION"))
            #expect(!lines.text.contains("VOLUME_GUARD_GESTURE"), "a press is no gesture")
        }
    }

    @Test("An action on a gesture runs on that gesture of its key alone, never on the press; the gesture is in the environment")
    func gestures() async throws {
        let remote = DeviceRef(name: "AB Shutter3 Consumer Control", node: "/dev/input/event6")
        func gesture(_ kind: GestureKind, key: UInt16 = 115) -> Trigger {
            Trigger(Gesture(kind: kind, direction: Direction(key: key), key: key, seq: 4, presses: 1, origin: .device(remote)))!
        }
        let press = Trigger(Press(seq: 4, direction: .up, key: 115, count: 1, origin: .device(remote)))
        let onTap = Action(command: ["x"], on: [.up], gesture: .tap)
        #expect(onTap.runs(on: gesture(.tap)))
        #expect(!onTap.runs(on: press))
        #expect(!onTap.runs(on: gesture(.double)))
        #expect(!onTap.runs(on: gesture(.tap, key: 114)), "a tap of another key")
        #expect(Action(command: ["x"], gesture: .hold).runs(on: gesture(.holdStart)))
        #expect(Action(command: ["x"], gesture: .double).runs(on: gesture(.double)))
        #expect(!Action(command: ["x"]).runs(on: gesture(.tap)), "an action on presses runs on no gesture")
        #expect(Trigger(Gesture(kind: .holdEnd, direction: .up, seq: 4, presses: 9, origin: .sink("s"))) == nil, "a hold's end starts nothing")
        await withRunner([Action(command: ["/usr/bin/env"], gesture: .hold)]) { runner, lines in
            runner.run(for: gesture(.holdStart))
            for expected in ["VOLUME_GUARD_GESTURE=hold", "VOLUME_GUARD_SEQ=4", "VOLUME_GUARD_KEY=KEY_VOLUMEUP"] {
                #expect(await eventually { lines.text.contains(expected) }, "\(lines.all)")
            }
        }
    }

    @Test("Standard error goes to the log as warnings; a failure says its status")
    func failure() async throws {
        await withRunner([Action(name: "broken", shell: "echo oops >&2; exit 3")]) { runner, lines in
            runner.run(for: press)
            #expect(await eventually { lines.text.contains("warning action failed action=broken seconds=") })
            #expect(lines.all.contains("warning oops action=broken seq=7\n"))
            #expect(lines.text.contains("status=3"))
        }
    }

    /// Under qemu-user (`scripts/test --arch arm64`), posix_spawn cannot report a failed exec: qemu runs
    /// its child as a fork, not in the parent's memory, where glibc's child leaves the error, so the
    /// spawn succeeds and the child exits 127.
    @Test(
        "A program that cannot be found is logged, and the next press tries again",
        .disabled(if: ProcessInfo.processInfo.environment["VOLUME_GUARD_TEST_QEMU_USER"] != nil, "qemu-user: no failed exec")
    )
    func missingProgram() async throws {
        await withRunner([Action(command: ["no-such-program-\(UUID().uuidString)"])]) { runner, lines in
            runner.run(for: press)
            #expect(await eventually { lines.text.contains("warning action could not run") })
            runner.run(for: press)
            #expect(await eventually { lines.text.components(separatedBy: "action could not run").count == 3 })
        }
    }

    @Test("A hanging command is stopped at its timeout with everything it started")
    func timeout() async throws {
        let pids = temporaryPath()
        let action = Action(name: "hang", shell: "sleep 60 & echo $! > \(pids); wait", timeout: .milliseconds(300))
        try await withRunner([action]) { runner, lines in
            runner.run(for: press)
            #expect(await eventually { lines.text.contains("warning action timed out; its processes were stopped action=hang") })
            let child = try #require(Int32((try? String(contentsOfFile: pids, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
            #expect(await eventually { kill(child, 0) != 0 }, "the command's own child was left running")
        }
    }

    @Test("A press for an action still running is dropped, not queued; the guard never waits")
    func busy() async throws {
        let file = temporaryPath()
        try await withRunner([Action(name: "slow", shell: "sleep 1; echo done >> \(file)")]) { runner, lines in
            runner.run(for: press)
            runner.run(for: Trigger(Press(seq: 8, direction: .up, count: 1, sink: "s")))
            #expect(!FileManager.default.fileExists(atPath: file), "run(for:) returned before the command finished")
            #expect(lines.text.contains("notice action still running; press dropped for it action=slow seq=8"))
            #expect(await eventually { (try? String(contentsOfFile: file, encoding: .utf8)) == "done\n" })
            try await Task.sleep(for: .milliseconds(1500))
            #expect((try? String(contentsOfFile: file, encoding: .utf8)) == "done\n")
        }
    }

    @Test("A press within the cooldown is dropped and logged; status tells the last run and its exit status")
    func cooldown() async throws {
        try await withRunner([Action(name: "photo", shell: "exit 4", cooldown: .seconds(60))]) { runner, lines in
            runner.run(for: press)
            #expect(await eventually { runner.report(gestures: .init(), sources: .sink)?.first?.last?.result == .exited })
            runner.run(for: Trigger(Press(seq: 8, direction: .up, count: 1, sink: "s")))
            #expect(lines.text.contains("notice action cooling down; press dropped for it action=photo remaining="), "\(lines.all)")
            let report = try #require(runner.report(gestures: .init(), sources: .sink)?.first)
            #expect((report.runs, report.dropped, report.last?.seq, report.last?.status) == (1, 1, 7, 4))
        }
    }

    @Test("At most four actions run at once")
    func limit() async throws {
        let actions = (1...6).map { Action(name: "a\($0)", shell: "sleep 1") }
        await withRunner(actions) { runner, lines in
            runner.run(for: press)
            #expect(lines.all.filter { $0.contains("4 actions already running; press dropped") }.count == 2)
        }
    }

    @Test("A shutdown stops running commands")
    func shutdown() async throws {
        let lines = LogLines()
        let runner = ActionRunner(actions: [Action(name: "long", command: ["sleep", "60"])], logger: lines.logger())
        let serving = Task { await runner.run() }
        runner.run(for: press)
        try await Task.sleep(for: .milliseconds(300))
        serving.cancel()
        await serving.value
        #expect(lines.text.contains("action stopped: the daemon is shutting down"))
    }

    @Test("A reload replaces the actions")
    func replace() async throws {
        await withRunner([Action(name: "old", command: ["true"])]) { runner, lines in
            runner.replace([Action(name: "new", command: ["/usr/bin/env"])])
            runner.run(for: press)
            #expect(await eventually { lines.text.contains("action=new") })
            #expect(!lines.text.contains("action=old"))
        }
    }
}

func temporaryPath() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("volume-guard-test-\(UUID().uuidString)").path
}

/// Waits until `condition` holds (10 s at most); a bounded wait, never an assertion about speed.
func eventually(within timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
