import InputDevices
import Testing

@testable import ClientCommands

@Suite("learn: the steps after")
struct LearnStepsTests {
    let booth = LearnSteps.Facts(
        user: "pi", source: .input, devices: ["2a:07:98:10:34:9c"], readable: false, hasSeat: false, lingers: false, daemonRunning: false,
        written: true)

    @Test("A fresh Pi with no seat: the rule by the user's group, lingering, then the service")
    func freshPi() {
        let steps = LearnSteps.steps(booth, group: "pi")
        #expect(steps == [.udevRule(.group("pi")), .linger, .service(restart: false)])
        #expect(
            LearnSteps.text(steps[0], booth).command.hasPrefix(
                "volume-guard devices --udev-rule --access group | sudo tee /etc/udev/rules.d/70-volume-guard.rules"))
        #expect(LearnSteps.text(steps[1], booth).command == "sudo loginctl enable-linger pi")
        #expect(LearnSteps.text(steps[2], booth).command == "systemctl --user enable --now volume-guard")
    }

    @Test("A desktop user who reads the remote, the daemon running: only a restart")
    func desktop() {
        var facts = booth
        (facts.readable, facts.hasSeat, facts.daemonRunning) = (true, true, true)
        #expect(LearnSteps.steps(facts, group: "pi") == [.service(restart: true)])
        #expect(LearnSteps.text(.service(restart: true), facts).command == "systemctl --user restart volume-guard")
    }

    @Test("Not written: the rule names the devices itself; the sink needs no rule")
    func unwritten() {
        var facts = booth
        facts.written = false
        facts.devices = ["AB Shutter3"]
        #expect(LearnSteps.text(.udevRule(.seat), facts).command.hasPrefix("volume-guard devices --udev-rule --device 'AB Shutter3' --access seat"))
        facts.source = .sink
        #expect(!LearnSteps.steps(facts, group: "pi").contains(.udevRule(.group("pi"))))
    }
}
