import GuardProtocol
import GuardSettings
import VolumeGuardCore

/// The facts judged, link by link in the order a press travels them: the config file, the daemon, the
/// sink (its audio server, its default, the desktop's popup), the devices, the service, the actions and
/// the HTTP listener and the MQTT broker. Pure, so that every judgement and every fix is unit tested with
/// no system at all.
struct Diagnosis {
    let facts: DoctorFacts

    init(_ facts: DoctorFacts) {
        self.facts = facts
    }

    var findings: [Finding] {
        var findings = [config, daemon]
        if configuration.source.guardsSink { findings += sink }
        if configuration.source.takesDevices { findings += devices }
        findings += service
        findings += configuration.actions.isEmpty ? [] : actions
        if let http = facts.http { findings.append(self.http(http)) }
        if let pairings = facts.pairings { findings.append(self.pairings(pairings)) }
        if let broker = facts.broker { findings.append(self.broker(broker)) }
        return findings
    }

    /// Whether anything is wrong: `doctor`'s exit status.
    var isHealthy: Bool { !findings.contains { $0.status == .wrong } }

    var configuration: DaemonConfiguration { facts.config.configuration }

    private var config: Finding {
        let file = facts.config
        if let mistake = file.mistake {
            return .wrong(.config, mistake, fix: "correct it, then check it with `volume-guard config`")
        }
        return .ok(.config, file.exists ? "\(file.path), source \(configuration.source.rawValue)" : "no \(file.path): the defaults apply")
    }

    private var daemon: Finding {
        switch facts.daemon {
        case .absent(let socket):
            return .wrong(.daemon, "not running (nothing answers at \(socket))", fix: startDaemon)
        case .silent(let socket, .noReply, _):
            return .wrong(.daemon, "does not answer at \(socket) (stopped or stuck)\(silentDaemonNamed)", fix: restartSilentDaemon)
        case .silent(let socket, .fileReplaced, _):
            return .wrong(
                .daemon,
                "does not answer: \(socket) refuses connections, yet a socket bound there listens\(silentDaemonNamed) "
                    + "(its file was removed or replaced)", fix: restartSilentDaemon)
        case .answered(let status):
            return Self.judge(status, mode: configuration.mode)
        }
    }

    /// The processes of the daemon that does not answer; systemd's left out, which holds the socket it
    /// passed a daemon it started (socket activation).
    private var silentDaemon: [NodeHolder] {
        facts.daemon.silentListeners.filter { $0.command != "systemd" }
    }

    /// The daemon that does not answer, named by its processes: `: volume-guard (pid 812)`.
    private var silentDaemonNamed: String {
        silentDaemon.isEmpty ? "" : ": " + silentDaemon.map { "\($0.command) (pid \($0.pid))" }.joined(separator: ", ")
    }

    /// How to end a daemon that does not answer and start it again: by its pid when it is known, as one
    /// started by hand is not the service's to restart.
    var restartSilentDaemon: String {
        let pids = silentDaemon.map { String($0.pid) }.joined(separator: " ")
        guard !pids.isEmpty else { return "systemctl --user restart volume-guard; `journalctl --user -u volume-guard -e` shows its last words" }
        return "stop it: `kill \(pids)` (`kill -KILL \(pids)` if it stays), then \(startDaemon)"
    }

    /// The daemon by its own account.
    private static func judge(_ status: StatusMessage, mode: GuardMode) -> Finding {
        let running = "running, \(status.state.rawValue), source \(status.source)"
        switch status.state {
        case .guarding:
            return .ok(.daemon, running)
        case .paused where mode == .whileSubscribed && status.subscribers == 0:
            return .ok(.daemon, running + " until a client subscribes (mode while-subscribed)")
        case .paused:
            return .wrong(.daemon, running + ": the keys act as they would without it", fix: "volume-guard resume")
        case .connecting:
            return .wrong(.daemon, running + ": no audio server answers it", fix: "start the audio server (see audio server)")
        case .noSink:
            return .wrong(.daemon, running + ": there is no sink to guard", fix: "give the audio server a sink (see default sink)")
        case .stopped:
            return .wrong(.daemon, running + ": it is stopping", fix: "systemctl --user start volume-guard")
        }
    }

    /// How to start the daemon, as this machine starts it: the service, enabled first when it is not.
    var startDaemon: String {
        switch facts.service {
        case .answered(let service, _) where Self.enabled.contains(service):
            "systemctl --user start volume-guard; `journalctl --user -u volume-guard -e` says why it stopped"
        case .answered:
            "systemctl --user enable --now volume-guard"
        case .unreachable:
            "systemctl --user start volume-guard (`enable --now` to start it at every login or boot)"
        case .noSystemd:
            "start it: `volume-guard run` (under systemd: `systemctl --user start volume-guard`)"
        }
    }

    /// `systemctl is-enabled`'s words for a unit that starts by itself.
    static let enabled: Set<String> = ["enabled", "enabled-runtime", "linked", "linked-runtime", "alias", "generated"]
}
