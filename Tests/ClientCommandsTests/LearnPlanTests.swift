import Testing

@testable import ClientCommands

@Suite("learn: what it says it writes, and what comes after")
struct LearnPlanTests {
    let plan = LearnPlan(
        path: "/home/pi/.config/volume-guard/config.toml", settings: [("source", "\"input\"")], action: [("on", "\"up\"")], writes: false,
        named: "/tmp/my booth.toml", root: true)

    @Test("The settings and the action are shown for the file, then the command that writes them, sudo's for root")
    func unwritten() {
        #expect(
            plan.settingLines == [
                "", "For /home/pi/.config/volume-guard/config.toml:", "  source = \"input\"", "  [[action]]", "  on = \"up\"",
                "To write them: sudo volume-guard learn --write --config '/tmp/my booth.toml'",
            ])
    }

    @Test("A plan that writes the file itself names no command for it")
    func written() {
        var writing = plan
        writing.writes = true
        #expect(!writing.settingLines.contains { $0.hasPrefix("To write them") })
    }

    @Test("The steps after are each shown with why, for the user to run")
    func steps() {
        let facts = LearnSteps.Facts(
            user: "pi", source: .input, devices: ["2a:07:98:10:34:9c"], readable: true, hasSeat: true, lingers: true, daemonRunning: false,
            written: true)
        let lines = LearnPlan.stepLines(LearnSteps.steps(facts, group: "pi"), facts)
        #expect(lines.first == "" && lines[1] == "Then, as pi:")
        #expect(lines.contains { $0.contains("systemctl --user enable --now volume-guard") }, "\(lines)")
        #expect(lines.last == "(`sudo volume-guard learn --setup` writes the file and does these.)")
    }

    @Test("Nothing heard: sudo is suggested only to a user who could not read some device")
    func hints() {
        #expect(Listening.hints(present: 3, unreadable: 2, root: false, daemonHeld: false) == ["this user cannot read 2 of them: `sudo volume-guard learn`"])
        #expect(Listening.hints(present: 3, unreadable: 2, root: true, daemonHeld: false).isEmpty, "root reads them all already")
        #expect(Listening.hints(present: 0, unreadable: 0, root: true, daemonHeld: true).count == 2)
    }
}
