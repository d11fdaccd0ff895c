import Glibc
import GuardProtocol
import InputDevices
import SystemPackage
import VolumeGuardCore

extension DeviceFacts {
    /// The devices present, what this user can do with the nodes of those `matches` takes, and the rule
    /// installed. A node the daemon holds (grabbed, or open to grab, by its account or, when it does not
    /// answer, by /proc's) is not probed: a probe's grab of it would fail, or make the daemon's fail.
    static func gather(matches: [DeviceMatch], daemon: DaemonFacts) -> DeviceFacts {
        let present = InputDirectory.scan()
        var held: Set<String> = []
        if case .answered(let status) = daemon {
            held = Set((status.devices ?? []).filter { $0.state == .grabbed || $0.state == .waiting }.compactMap(\.path))
        }
        let silent = Set(daemon.silentListeners.map(\.pid))
        var nodes: [String: NodeFacts] = [:]
        for device in present where matches.contains(where: { $0.matches(device) }) {
            let readable = access(device.node, R_OK) == 0
            let openBySilent = silent.isEmpty ? [] : Processes.holders(of: device.node).filter { silent.contains($0.pid) }
            let probed = readable && !held.contains(device.node) && openBySilent.isEmpty
            nodes[device.node] = NodeFacts(readable: readable, grab: probed ? GrabProbe(device.node) : nil, openBySilentDaemon: openBySilent)
        }
        return DeviceFacts(present: present, nodes: nodes, rule: .installed)
    }
}

extension GrabProbe {
    /// Grabs `node` (EVIOCGRAB) and lets it go at once: EBUSY says that another program holds it grabbed.
    init(_ node: String) {
        let file: EvdevFile
        do {
            file = try EvdevFile.open(node)
        } catch {
            self = .failed(reason: "\(error)")
            return
        }
        defer { file.close() }
        do {
            try file.grab()
            try? file.ungrab()
            self = .free
        } catch  where error == .resourceBusy {
            self = .grabbed(holders: Processes.holders(of: node))
        } catch {
            self = .failed(reason: "\(error)")
        }
    }
}

extension RuleFileFacts {
    /// The rule where `volume-guard devices --udev-rule` says to put it, else where udev also reads rules,
    /// in the order udev lets one file of a name override another (a read-only /etc puts it in /run).
    static var installed: RuleFileFacts {
        let name = UdevRule.path.split(separator: "/").last.map(String.init) ?? ""
        for path in [UdevRule.path, "/run/udev/rules.d/\(name)"] where access(path, F_OK) == 0 {
            guard let text = Directory.contents(path) else {
                return .unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            return .installed(path: path, text: text)
        }
        return .absent
    }
}
