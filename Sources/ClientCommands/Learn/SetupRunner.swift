import DurableFiles
import FoundationEssentials
import Glibc
import InputDevices
import VolumeGuardCore

/// `learn --setup`: does, as root, the steps `learn` would print, for the user it works for. The udev rule
/// is the one `devices --udev-rule` prints for the learned devices; the service is the user's own, asked of
/// the user's service manager (which lingering starts) by the user's own `systemctl --user`.
struct SetupRunner {
    let user: InvokingUser
    let matches: [DeviceMatch]
    let present: [InputDeviceInfo]

    /// Runs `steps`, saying what each did; false when one failed (it says which, and the command to run
    /// by hand). Every step is tried.
    func run(_ steps: [LearnSteps.Step], _ facts: LearnSteps.Facts) -> Bool {
        printLine("\nSetting up for \(user.name):")
        var ok = true
        for step in steps {
            let (why, command) = LearnSteps.text(step, facts)
            if perform(step) {
                printLine("  done: \(why)")
            } else {
                ok = false
                printLine("  FAILED: \(why); by hand, as \(user.name): \(command)")
            }
        }
        return ok
    }

    private func perform(_ step: LearnSteps.Step) -> Bool {
        switch step {
        case .udevRule(let access):
            let rule = UdevRule.text(for: matches, devices: present, access: access)
            // Root's own directory: replaced whole, so that udev never reads half a rule, nor a power cut
            // leaves an empty one.
            do {
                try DurableFile.replace(UdevRule.path, with: Array(rule.utf8), permissions: 0o644)
            } catch {
                printError("volume-guard: \(error)")
                return false
            }
            // The rule gives the nodes present now only once udev runs its rules on them again.
            return succeeds(["udevadm", "control", "--reload"]) && succeeds(["udevadm", "trigger", "--subsystem-match=input", "--settle"])
        case .linger:
            return succeeds(["loginctl", "enable-linger", user.name])
        case .service(let restart):
            // The user's own systemctl, on the user's bus: lingering starts the user's manager a moment after
            // it is enabled, so it is asked again for a few seconds.
            let runtime = "/run/user/\(user.uid)"
            let command =
                ["runuser", "-u", user.name, "--", "env", "XDG_RUNTIME_DIR=\(runtime)", "DBUS_SESSION_BUS_ADDRESS=unix:path=\(runtime)/bus"]
                + ["systemctl", "--user"] + (restart ? ["restart", "volume-guard.service"] : ["enable", "--now", "volume-guard.service"])
            for attempt in 0..<10 {
                if succeeds(command, quiet: attempt < 9) { return true }
                sleep(1)
            }
            return false
        }
    }

    /// Whether `arguments` ran and exited 0, within `deadline`; what it printed is shown unless `quiet`.
    private func succeeds(_ arguments: [String], quiet: Bool = false) -> Bool {
        let run = BoundedRun(arguments, environment: ProcessInfo.processInfo.environment, deadline: Self.deadline)
        if !quiet, case .answered(let lines, _) = run { for line in lines { printLine(line) } }
        if !quiet, case .failed(let reason) = run { printError("volume-guard: \(reason)") }
        return run.succeeded
    }

    /// Long enough for `udevadm trigger --settle` on a slow machine.
    static let deadline: Duration = .seconds(60)
}
