import GuardProtocol
import GuardSettings
import VolumeGuardCore

/// The facts judged, link by link in the order a press travels them: the config file, the daemon, the
/// sink (its audio server, its default, the desktop's popup), the devices, the service, the actions and
/// the HTTP listener. Pure, so that every judgement and every fix is unit tested with no system at all.
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
        case .silent(let socket):
            return .wrong(
                .daemon, "does not answer at \(socket) (stopped or stuck)",
                fix: "systemctl --user restart volume-guard; `journalctl --user -u volume-guard -e` shows its last words")
        case .answered(let status):
            return Self.judge(status, mode: configuration.mode)
        }
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

// MARK: - The sink

extension Diagnosis {
    private var sink: [Finding] {
        guard let server = facts.audioServer else { return [] }
        switch server {
        case .unreachable(let reason):
            let at = configuration.server.map { " at \($0)" } ?? ""
            return [
                .wrong(
                    .audioServer, "none answers\(at): \(reason)",
                    fix: "start the session's audio server: `systemctl --user start pipewire-pulse.socket wireplumber` "
                        + "(PipeWire) or `pulseaudio --start`; with no desktop, read the remote itself: source = \"input\"")
            ] + popup
        case .answered(let name, let defaultSink, let sinks):
            return [.ok(.audioServer, name), self.defaultSink(defaultSink, sinks: sinks)] + popup
        }
    }

    private func defaultSink(_ defaultSink: String?, sinks: [String]) -> Finding {
        let selection = configuration.core.selection
        if case .matching(let pattern) = selection {
            guard let sink = sinks.first(where: selection.admits) else {
                return .wrong(
                    .defaultSink, "no sink matches the configured sink \"\(pattern)\" (there are: \(Self.list(sinks)))",
                    fix: "connect it, or set `sink` to one of `pactl list short sinks`")
            }
            return .ok(.defaultSink, "the configured sink \"\(pattern)\" is \(sink)")
        }
        guard let defaultSink, defaultSink != SinkSelection.defaultSinkName else {
            return sinks.isEmpty
                ? .wrong(.defaultSink, "the audio server has no sink at all", fix: "connect an output (HDMI, headphones, a USB card)")
                : .wrong(.defaultSink, "the audio server names no default sink", fix: "pactl set-default-sink \(sinks[0])")
        }
        return .ok(.defaultSink, defaultSink)
    }

    /// Each desktop's volume popup, which shows on every press (the guard puts the volume back, but the
    /// desktop shows the change first).
    private var popup: [Finding] {
        guard !facts.desktops.isEmpty else { return [.ok(.volumePopup, "no desktop session of \(facts.user.name) runs here")] }
        return facts.desktops.map { desktop in
            switch desktop {
            case .mate(let osd?) where !osd:
                .ok(.volumePopup, "MATE's is off")
            case .mate(nil):
                .unknown(.volumePopup, "MATE's setting could not be read (gsettings failed)")
            case .mate:
                .wrong(
                    .volumePopup, "MATE shows it on every press",
                    fix: "gsettings set org.mate.SettingsDaemon.plugins.media-keys enable-osd false")
            case .kde(let plasmaparc, let writer):
                Self.volumeOSDIsOff(plasmaparc: plasmaparc ?? "")
                    ? .ok(.volumePopup, "Plasma's is off")
                    : .wrong(
                        .volumePopup, "Plasma shows it on every press",
                        fix: "\(writer) --file plasmaparc --group General --key VolumeOsd false")
            case .gnome where configuration.source == .both:
                .ok(.volumePopup, "GNOME shows none for the grabbed devices (the machine's own volume keys still show it)")
            case .gnome:
                .wrong(
                    .volumePopup, "GNOME shows it on every press, and no setting turns it off",
                    fix: "take the keys from the remote itself: source = \"input\" and its devices in the config file (`volume-guard devices` lists them)")
            }
        }
    }

    /// Whether `plasmaparc` (an INI file) sets `VolumeOsd=false` in `[General]`; Plasma shows the popup otherwise.
    static func volumeOSDIsOff(plasmaparc: String) -> Bool {
        var group = ""
        var off = false
        for line in plasmaparc.split(whereSeparator: \.isNewline).map({ $0.trimmingWhitespace }) {
            if line.hasPrefix("[") {
                group = String(line)
            } else if group == "[General]", let equals = line.firstIndex(of: "="),
                line[..<equals].trimmingWhitespace == "VolumeOsd"
            {
                off = line[line.index(after: equals)...].trimmingWhitespace == "false"
            }
        }
        return off
    }

    static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }
}

// MARK: - The service, the actions, the HTTP listener

extension Diagnosis {
    private var service: [Finding] {
        switch facts.service {
        case .noSystemd:
            return [.unknown(.service, "systemd is not running here (no /run/systemd/system): no service to check")]
        case .unreachable(let reason):
            return [.unknown(.service, "systemd's user manager cannot be asked: \(reason)")]
        case .answered(let service, let socket):
            let found: Finding
            if Self.enabled.contains(service) {
                found = .ok(.service, "volume-guard.service is enabled")
            } else if service == "masked" {
                found = .wrong(
                    .service, "volume-guard.service is masked", fix: "systemctl --user unmask volume-guard && systemctl --user enable --now volume-guard")
            } else if service == "not-found" {
                found = .wrong(
                    .service, "systemd knows no volume-guard.service",
                    fix: "install the package (or scripts/install), then `systemctl --user daemon-reload`")
            } else if Self.enabled.contains(socket) && !mustRunFromStart {
                found = .ok(.service, "volume-guard.socket is enabled: the first client starts the daemon")
            } else if Self.enabled.contains(socket) {
                found = .wrong(
                    .service,
                    "only volume-guard.socket is enabled: the daemon starts when a client connects, so until then no "
                        + "device is grabbed and no action runs", fix: "systemctl --user enable --now volume-guard")
            } else {
                return [.wrong(.service, "volume-guard is not enabled: it runs only when started by hand", fix: "systemctl --user enable --now volume-guard")]
            }
            return [found, lingering]
        }
    }

    /// Whether the daemon has work before any client connects: devices to grab, actions to run, a page to serve.
    private var mustRunFromStart: Bool {
        configuration.source.takesDevices || !configuration.actions.isEmpty || configuration.http != nil
    }

    /// An enabled user service starts with its user's first session; with no one logged in at the machine
    /// (a booth started at boot), only lingering starts it.
    private var lingering: Finding {
        let user = facts.user
        if user.lingering { return .ok(.lingering, "\(user.name) lingers: the service starts at boot") }
        guard user.seats.isEmpty else {
            return .ok(.lingering, "\(user.name) is logged in at \(user.seats.joined(separator: ", ")): the service starts with that session")
        }
        return .wrong(
            .lingering, "\(user.name) has no session on a seat and does not linger: the service starts only when \(user.name) logs in",
            fix: "sudo loginctl enable-linger \(user.name)")
    }

    private var actions: [Finding] {
        facts.programs.map { program in
            switch program.found {
            case .executable(let path):
                .ok(.action, program.action, path == program.program ? path : "\(program.program) is \(path)")
            case .notExecutable(let path):
                .wrong(.action, program.action, "\(path) is not executable", fix: "chmod +x \(path)")
            case .missing where program.program.contains("/"):
                .wrong(.action, program.action, "\(program.program) does not exist", fix: "install it, or correct `run`")
            case .missing:
                .wrong(.action, program.action, "\(program.program) is not found in PATH", fix: "install it, or give `run` its full path")
            }
        }
    }

    private func http(_ http: HTTPFacts) -> Finding {
        if case .success = http.connected { return .ok(.http, "listening at \(http.address)") }
        guard case .failure(let failure) = http.connected else { return .unknown(.http, "not asked") }
        let nothing = "nothing listens at \(http.address) (\(failure.reason))"
        switch facts.daemon {
        case .absent, .silent:
            return .wrong(.http, nothing + ": the daemon is not running", fix: startDaemon)
        case .answered(let status) where status.http == nil:
            return .wrong(
                .http, nothing + ": the daemon runs without it (`http` was set after it started)", fix: "systemctl --user restart volume-guard")
        case .answered:
            return .wrong(.http, nothing, fix: "a firewall or another program may hold the port: `ss -ltnp` lists who listens where")
        }
    }
}

extension StringProtocol {
    /// Without the spaces and tabs at either end.
    fileprivate var trimmingWhitespace: Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
