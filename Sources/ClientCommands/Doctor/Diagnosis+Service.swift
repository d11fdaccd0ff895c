import GuardProtocol
import GuardSettings
import VolumeGuardCore

/// The service: enabled, so that it starts by itself, and the user lingering when it must start at boot.
extension Diagnosis {
    var service: [Finding] {
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
}
