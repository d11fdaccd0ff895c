import InputDevices
import VolumeGuardCore

/// What is left after `learn` for the booth to take the remote's presses from boot on: the steps, each
/// with why and the command, in the order they are done. A pure function of what learn found, so that
/// `--setup` does exactly what the printed commands say.
struct LearnSteps {
    struct Facts: Hashable, Sendable {
        var user: String
        /// The learned setup's source.
        var source: SourceSelection
        /// The devices as the config file names them.
        var devices: [String]
        /// Whether the user may read every learned device now.
        var readable: Bool
        /// Whether the user has an active session on a seat: a rule by the seat then, and no lingering.
        var hasSeat: Bool
        var lingers: Bool
        /// Whether a daemon answered on the user's socket.
        var daemonRunning: Bool
        /// Whether the config file holds the learned setup (`--write`).
        var written: Bool
    }

    enum Step: Equatable, Sendable {
        /// Install the udev rule that lets the user read exactly the configured devices, and apply it.
        case udevRule(UdevRule.Access)
        /// Start the user's service manager at boot, with nobody logged in.
        case linger
        /// Enable the service and start it, or restart a running daemon (it reads `devices` at start).
        case service(restart: Bool)
    }

    static func steps(_ facts: Facts, group: String) -> [Step] {
        var steps: [Step] = []
        if facts.source != .sink && !facts.readable { steps.append(.udevRule(.standard(onSeat: facts.hasSeat, group: group))) }
        if !facts.hasSeat && !facts.lingers { steps.append(.linger) }
        steps.append(.service(restart: facts.daemonRunning))
        return steps
    }

    /// Why the step, and the command that does it, as the user types it (with `sudo` where root must).
    static func text(_ step: Step, _ facts: Facts) -> (why: String, command: String) {
        switch step {
        case .udevRule(let access):
            let devices = facts.written ? "" : facts.devices.map { " --device \(shellQuoted($0))" }.joined()
            return (
                "let \(facts.user) read the remote, and no other keyboard (\(access == .seat ? "while logged in at the seat" : "by \(facts.user)'s group, with no login"))",
                UdevRule.installCommand("\(devices) --access \(access.name)")
            )
        case .linger:
            return ("start \(facts.user)'s services at boot, with nobody logged in", "sudo loginctl enable-linger \(facts.user)")
        case .service(let restart):
            return restart
                ? ("the running daemon reads its devices when it starts", "systemctl --user restart volume-guard")
                : ("run the service, now and at every start", "systemctl --user enable --now volume-guard")
        }
    }

    /// `text` as one word for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        let plain = text.allSatisfy { $0.isLetter || $0.isNumber || "-_./:@%+=,".contains($0) }
        return plain && !text.isEmpty ? text : "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
