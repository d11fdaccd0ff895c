import GuardProtocol
import GuardSettings
import VolumeGuardCore

/// What `doctor` found on the machine, link by link, as plain values: the shell gathers them
/// (`DoctorFacts.gather`), and `Diagnosis` judges them with no system at all.
struct DoctorFacts: Sendable {
    var config: ConfigFacts
    var daemon: DaemonFacts
    /// Asked only when the source takes the sink.
    var audioServer: AudioServerFacts?
    /// The desktop sessions of this user that run now, each with its volume popup's setting.
    var desktops: [Desktop] = []
    /// Gathered only when the source takes devices.
    var devices: DeviceFacts?
    var user: UserFacts
    var service: ServiceFacts
    /// Each action's program, in the config file's order.
    var programs: [ProgramFacts] = []
    /// Asked only when `http` is configured.
    var http: HTTPFacts?
}

/// The config file, and the configuration it makes (the defaults when it has a mistake, as the daemon cannot start with it).
struct ConfigFacts: Sendable {
    var path: String
    var exists: Bool
    /// The mistake, named by line and key, as `volume-guard config` says it.
    var mistake: String?
    var options: Options
    var environment: [String: String] = [:]

    var configuration: DaemonConfiguration { DaemonConfiguration(options, environment: environment) }
}

enum DaemonFacts: Sendable {
    /// Its reply to `status`.
    case answered(StatusMessage)
    /// Nothing accepts connections at the socket.
    case absent(socket: String)
    /// It accepted, but did not reply in time (stopped, or stuck).
    case silent(socket: String)
}

enum AudioServerFacts: Sendable {
    /// Its name and version, its default sink (nil: none) and every sink's name.
    case answered(server: String, defaultSink: String?, sinks: [String])
    case unreachable(reason: String)
}

/// A desktop session of this user, and what it does with a change of the sink's volume.
enum Desktop: Hashable, Sendable {
    /// MATE's setting `enable-osd`, as gsettings reads it; nil when it could not be read.
    case mate(osd: Bool?)
    /// KDE Plasma's `plasmaparc` file (nil: there is none, so the popup is on) and the kwriteconfig it has.
    case kde(plasmaparc: String?, writer: String)
    /// GNOME, whose popup no setting turns off.
    case gnome
}

struct UserFacts: Sendable {
    var name: String
    /// The value a group rule gives the nodes to (`UdevRule.groupValue`): this user's primary group.
    var group: String
    /// The seats on which the user has an active session now (logind's record).
    var seats: [String]
    /// Whether logind starts the user's services at boot (/var/lib/systemd/linger/USER).
    var lingering: Bool
}

enum ServiceFacts: Sendable {
    /// systemd is not the init here (no /run/systemd/system): there is no service to check.
    case noSystemd
    /// systemctl could not answer (no user manager: another user's shell, sudo, no session bus).
    case unreachable(reason: String)
    /// `systemctl --user is-enabled`'s words for `volume-guard.service` and `volume-guard.socket`.
    case answered(service: String, socket: String)
}

struct ProgramFacts: Sendable {
    var action: String
    /// `run`'s first word.
    var program: String
    var found: ProgramLookup
}

enum ProgramLookup: Hashable, Sendable {
    case executable(path: String)
    /// A file, but not one this user may execute.
    case notExecutable(path: String)
    /// A path where nothing is, or a name in none of PATH's directories.
    case missing
}

struct HTTPFacts: Sendable {
    /// Where it was asked: the daemon's bound address when it reports one, else the configured one.
    var address: String
    var connected: Result<Void, ConnectFailure>
}

struct ConnectFailure: Error, Sendable {
    var reason: String
}
