import Glibc
import GuardConfig
import GuardProtocol
import GuardSettings
import InputDevices
import Pairing
import PulseBridge
import VolumeGuardClient
import VolumeGuardCore

/// The thin shell of `doctor`: each fact read from where it lives, each wait bounded, nothing judged.
extension DoctorFacts {
    /// How long the daemon, the audio server, systemctl and gsettings each have to answer.
    static let patience: Duration = .seconds(3)

    /// Every fact `Diagnosis` needs, for the config file `options` names and the socket it gives.
    static func gather(_ options: SocketOptions) async -> DoctorFacts {
        let config = ConfigFacts.read(options.configFile)
        let configuration = config.configuration
        let daemon = await DaemonFacts.ask(options.given ?? configuration.socketPath)
        let service = ServiceFacts.ask(environment: config.environment)
        var facts = DoctorFacts(config: config, daemon: daemon, user: .current, service: service)
        if configuration.source.guardsSink {
            facts.audioServer = await AudioServerFacts.ask(configuration.server)
            facts.desktops = Desktop.running(environment: config.environment)
        }
        if configuration.source.takesDevices {
            facts.devices = DeviceFacts.gather(matches: configuration.input.matches, daemon: daemon)
        }
        // An action runs with the daemon's PATH: the user manager's, for the service.
        let path = service.managerPath(environment: config.environment) ?? config.environment["PATH"]
        facts.programs = configuration.actions.map { action in
            ProgramFacts(action: action.name, program: action.command[0], found: ProgramLookup(action.command[0], path: path))
        }
        if let address = HTTPFacts.address(configured: configuration.http?.address, daemon: daemon) {
            facts.http = HTTPFacts(address: address.description, connected: HTTPFacts.connect(to: address))
        }
        if configuration.http != nil {
            facts.pairings = PairingsFacts.read(PairingsFile(path: PairingsFile.standardPath(environment: config.environment)))
        }
        if let broker = configuration.broker {
            // The connection's deadline counts from the connect; a name lookup before it does not, so the
            // whole ask is bounded too.
            let limit = BrokerFacts.patience + .seconds(1)
            let answer = await withinDeadline(limit) { await BrokerFacts.ask(broker) }
            facts.broker =
                (try? answer?.get())
                ?? BrokerFacts(
                    broker: "\(broker.address)", trial: .failed(reason: "no answer within \(limit.components.seconds) s (is the name resolved?)", tls: false))
        }
        return facts
    }
}

extension ConfigFacts {
    /// The file as `run` reads it; a mistake is a fact here, not the end of the command, and the file's
    /// `socket` is then read from its line alone.
    static func read(_ options: ConfigFileOptions) -> ConfigFacts {
        let file = options.file
        var facts = ConfigFacts(path: file.path, exists: access(file.path, F_OK) == 0, options: Options(), environment: options.environment)
        do {
            facts.options = try file.read()
        } catch {
            facts.mistake = "\(error)"
            // The daemon runs with the file as it was when it started, whose socket this line likely still names.
            facts.options.socket = file.readAlone("socket")?.socket
        }
        return facts
    }
}

extension DaemonFacts {
    static func ask(_ socket: String) async -> DaemonFacts {
        let reply = await withinDeadline(DoctorFacts.patience) { try await GuardClient(socketPath: socket).request(Request(.status)) }
        switch reply {
        case .success(.status(let status))?:
            return .answered(status)
        case .failure(GuardClient.Failure.noDaemon)?:
            let listeners = Processes.listeners(on: socket)
            return listeners.isEmpty ? .absent(socket: socket) : .silent(socket: socket, why: .fileReplaced, listeners: listeners)
        default:
            return .silent(socket: socket, why: .noReply, listeners: Processes.listeners(on: socket))
        }
    }
}

extension AudioServerFacts {
    /// The server at `server` (nil: the session's), as the daemon would connect to it.
    static func ask(_ server: String?) async -> AudioServerFacts {
        let outcome = await withinDeadline(DoctorFacts.patience) {
            let connection = PulseConnection(applicationName: "volume-guard doctor") { _ in }
            try await connection.connect(to: server)
            let info = try await connection.serverInfo()
            let facts = AudioServerFacts.answered(
                server: "\(info.name) \(info.version)", defaultSink: await connection.defaultSinkName(), sinks: await connection.sinkNames())
            await connection.close()
            return facts
        }
        switch outcome {
        case .success(let facts)?: return facts
        case .failure(let error)?: return .unreachable(reason: "\(error)")
        case nil: return .unreachable(reason: "no answer within \(DoctorFacts.patience.components.seconds) s")
        }
    }
}

extension PulseConnection {
    /// The default sink's real name (pipewire-pulse's placeholder resolved), nil when there is none.
    fileprivate func defaultSinkName() async -> String? {
        await withCheckedContinuation { done in requestDefaultSink { done.resume(returning: $0) } }
    }

    fileprivate func sinkNames() async -> [String] {
        await withCheckedContinuation { done in requestSinks { done.resume(returning: ($0 ?? []).map(\.name)) } }
    }
}

extension UserFacts {
    /// This user (the process's own, not the one sudo ran for), as the udev rule and logind know it.
    static var current: UserFacts {
        let user = InvokingUser.current(environment: [:])
        return UserFacts(name: user.name, group: user.groupValue, seats: LogindUser.activeSeats(uid: user.uid), lingering: user.lingers)
    }
}

extension ServiceFacts {
    /// What systemd's user manager says of the units, when systemd runs here (sd_booted(3)'s test).
    static func ask(environment: [String: String]) -> ServiceFacts {
        guard access("/run/systemd/system", F_OK) == 0 else { return .noSystemd }
        // One unit a call: asked of two, systemctl may end its answer at the first it knows nothing of.
        var states: [String] = []
        for unit in ["volume-guard.service", "volume-guard.socket"] {
            let answer = systemctl(["is-enabled", unit], environment: environment)
            guard case .answered(let lines, _) = answer else { return .unreachable(reason: answer.reason) }
            guard let state = state(answering: lines) else { return .unreachable(reason: lines.first ?? "systemctl said nothing of \(unit)") }
            states.append(state)
        }
        return .answered(service: states[0], socket: states[1])
    }

    /// The user manager's PATH, which the service's actions run with; nil when it cannot be asked.
    func managerPath(environment: [String: String]) -> String? {
        guard case .answered = self, case .answered(let lines, _) = Self.systemctl(["show-environment"], environment: environment) else { return nil }
        return lines.first { $0.hasPrefix("PATH=") }.map { String($0.dropFirst("PATH=".count)) }
    }

    private static func systemctl(_ arguments: [String], environment: [String: String]) -> BoundedRun {
        BoundedRun(["systemctl", "--user"] + arguments, environment: environment)
    }
}

extension PairingsFacts {
    static func read(_ file: PairingsFile) -> PairingsFacts {
        var info = stat()
        let mode = stat(file.path, &info) == 0 ? UInt32(info.st_mode & 0o777) : nil
        return PairingsFacts(path: file.path, clients: Result { () throws(PairingsFileError) in try file.load().clients.map(\.name) }, mode: mode)
    }
}
