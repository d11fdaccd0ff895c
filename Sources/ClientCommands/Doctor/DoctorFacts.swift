import GuardProtocol
import GuardSettings
import Pairing
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
    /// Read only when `http` is configured.
    var pairings: PairingsFacts?
    /// Asked only when `mqtt` is configured.
    var broker: BrokerFacts?
}

/// The config file, and the configuration it makes: when it has a mistake, the defaults, as the daemon cannot
/// start with it, but for its `socket` when that line alone reads (`ConfigFile.readAlone`): the daemon that
/// runs was started with the file before the mistake, and is looked for where it listens.
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
    /// Nothing accepts connections at the socket, and no process listens on a socket bound to its path.
    case absent(socket: String)
    /// A daemon is there, and does not answer: `listeners` are the processes that listen on a socket bound
    /// to its path (/proc/net/unix and /proc/PID/fd, as far as this user may look), the daemon's own.
    case silent(socket: String, why: Silence, listeners: [NodeHolder])

    enum Silence: Sendable {
        /// It accepted, but did not reply in time (stopped, or stuck).
        case noReply
        /// The file at the path refuses connections, yet a process listens on a socket bound there: the
        /// file was removed or replaced (by a second daemon started on the same socket, say).
        case fileReplaced
    }

    /// The processes of a daemon that does not answer; none when it answers or is absent.
    var silentListeners: [NodeHolder] {
        if case .silent(_, _, let listeners) = self { listeners } else { [] }
    }

    /// The inodes of the sockets that listen bound to `path`, from `table`, the text of /proc/net/unix:
    /// `Num RefCount Protocol Flags Type St Inode Path`, a listening socket's flags holding __SO_ACCEPTCON
    /// (0x10000). The path stays there when its file is removed or replaced: the socket is found by it.
    static func listeningInodes(in table: String, boundTo path: String) -> [String] {
        table.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 7)
            guard fields.count == 8, fields[7] == path, let flags = Int(fields[3], radix: 16), flags & 0x10000 != 0 else { return nil }
            return String(fields[6])
        }
    }
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

extension ServiceFacts {
    /// `systemctl is-enabled UNIT`'s word for its one unit, from the lines it printed: "not-found" for a unit
    /// systemd has no file of, which its versions say in that word or by an error naming the file; nil when
    /// the answer is not a word (no user manager to ask: "Failed to connect to bus").
    static func state(answering lines: [String]) -> String? {
        guard let first = lines.first else { return nil }
        if lines.contains(where: { $0.contains("No such file") }) { return "not-found" }
        return !first.isEmpty && first.allSatisfy({ $0.isLetter || $0 == "-" }) ? first : nil
    }
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

/// The pairings file, as `pair` writes it and the listener reads it.
struct PairingsFacts: Sendable {
    var path: String
    /// The clients it names, or why it cannot be read.
    var clients: Result<[String], PairingsFileError>
    /// Its permission bits; nil when there is no file.
    var mode: UInt32?
}

struct ConnectFailure: Error, Sendable {
    var reason: String
}

/// The broker `mqtt` names, as one connection of doctor's own found it.
struct BrokerFacts: Sendable {
    var broker: String
    var trial: BrokerTrial
}

enum BrokerTrial: Hashable, Sendable {
    case connected
    /// The broker refused the connection (MQTT's return `code`): the credentials, mostly.
    case refused(code: Int, reason: String)
    /// No connection: nothing listens, the network, TLS (`tls`), or no answer in time.
    case failed(reason: String, tls: Bool)
    /// The password file could not be read.
    case noPassword(String)
}
