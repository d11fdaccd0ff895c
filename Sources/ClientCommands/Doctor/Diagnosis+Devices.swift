import GuardProtocol
import GuardSettings
import InputDevices
import VolumeGuardCore

/// The devices: each configured one present, readable by this user (the daemon's), grabbed by the daemon
/// and by nothing else, and whether the installed udev rule covers it.
extension Diagnosis {
    var devices: [Finding] {
        guard let devices = facts.devices else { return [] }
        let matches = configuration.input.matches
        guard !matches.isEmpty else {
            return [
                .wrong(
                    .device, "the source takes input devices, but none is configured",
                    fix: "name the remote in the config file: devices = [\"NAME\"] (`volume-guard devices` lists them)")
            ]
        }
        var findings: [Finding] = []
        var judged: Set<String> = []
        for match in matches {
            let present = devices.present.filter(match.matches)
            if present.isEmpty { findings.append(.wrong(.device, match.description, "not present", fix: Self.connect(match))) }
            for device in present where judged.insert(device.node).inserted {
                findings.append(judge(device, match: match, in: devices))
            }
        }
        return findings
    }

    /// How to bring a device that is not present: by its Bluetooth address when that is how it is named.
    static func connect(_ match: DeviceMatch) -> String {
        let address = if case .address(let address) = match { address } else { "ADDRESS" }
        let listed = if case .address = match { "" } else { ", `bluetoothctl devices` lists them" }
        return "connect it: switch it on or press a key (a paired Bluetooth remote: `bluetoothctl connect \(address)`\(listed)); "
            + "`volume-guard devices` lists the devices present"
    }

    /// Whom the installed rule gives a configured device to.
    enum RuleCoverage: Equatable {
        case none
        case seat
        case group
    }

    /// Whether `rule` has the lines `volume-guard devices --udev-rule` writes for `match` now, by the seat or
    /// by this user's group (its comments aside: they name the command and the date it was run with).
    func coverage(of match: DeviceMatch, present: [InputDeviceInfo], rule: RuleFileFacts) -> RuleCoverage {
        guard case .installed(_, let text) = rule else { return .none }
        let installed = Set(text.split(whereSeparator: \.isNewline).map(String.init))
        let accesses: [(UdevRule.Access, RuleCoverage)] = [(.seat, .seat), (.group(facts.user.group), .group)]
        for (access, coverage) in accesses {
            let lines = UdevRule.text(for: [match], devices: present, access: access).split(whereSeparator: \.isNewline)
                .filter { !$0.hasPrefix("#") }.map(String.init)
            if !lines.isEmpty && lines.allSatisfy(installed.contains) { return coverage }
        }
        return .none
    }

    /// The command that installs the rule and applies it: by the user's group when the user is on no seat
    /// now, as a service started at boot is.
    var installRule: String {
        let access = facts.user.seats.isEmpty ? " --access group" : ""
        return UdevRule.installCommand(access)
    }

    private func judge(_ device: InputDeviceInfo, match: DeviceMatch, in devices: DeviceFacts) -> Finding {
        let node = devices.nodes[device.node] ?? NodeFacts(readable: false, grab: nil)
        let coverage = coverage(of: match, present: devices.present, rule: devices.rule)
        let at = "\(device.node), \(device.ids)"
        guard node.readable else { return unreadable(device, at: at, coverage: coverage, rule: devices.rule) }
        if !node.openBySilentDaemon.isEmpty {
            let named = node.openBySilentDaemon.map { "\($0.command) (pid \($0.pid))" }.joined(separator: ", ")
            return .wrong(
                .device, device.name, "\(at): held by the daemon, \(named), which does not answer: its presses go nowhere", fix: restartSilentDaemon)
        }
        if case .grabbed(let holders)? = node.grab { return grabbedElsewhere(device, at: at, holders: holders) }
        let ruleNote =
            switch coverage {
            case .none: "no volume-guard udev rule covers it (\(facts.user.name) reads it otherwise)"
            case .seat: "the udev rule covers it, by the seat"
            case .group: "the udev rule covers it, by the group \(facts.user.group)"
            }
        let reported = daemonEntry(for: device.node)
        switch (facts.daemon, reported?.state) {
        case (_, .grabbed?):
            return .ok(.device, device.name, "\(at): grabbed by volume-guard; \(ruleNote)")
        case (_, .waiting?):
            return .ok(.device, device.name, "\(at): open, grabbed once no key on it is down; \(ruleNote)")
        case (_, .paused?):
            return .ok(.device, device.name, "\(at): left to the desktop while volume-guard is paused; \(ruleNote)")
        case (_, .refused?):
            let error = reported?.error ?? "refused"
            return .wrong(.device, device.name, "\(at): volume-guard cannot take it: \(error)", fix: reported?.fix ?? "systemctl --user restart volume-guard")
        case (.answered, _):
            return .wrong(
                .device, device.name, "\(at): present, but volume-guard has not taken it: it runs with other devices than the config file names",
                fix: "systemctl --user restart volume-guard")
        case (.absent, _), (.silent, _):
            if case .failed(let reason)? = node.grab {
                return .unknown(.device, device.name, "\(at): readable; whether another program grabbed it is not known (\(reason))")
            }
            return .ok(.device, device.name, "\(at): readable and free to grab; \(ruleNote)")
        }
    }

    private func unreadable(_ device: InputDeviceInfo, at: String, coverage: RuleCoverage, rule: RuleFileFacts) -> Finding {
        let user = facts.user.name
        let cannot = "\(at): \(user) cannot read it (permission denied)"
        switch (coverage, rule) {
        case (.seat, .installed(let path, _)) where facts.user.seats.isEmpty:
            return .wrong(
                .device, device.name, "\(cannot): \(path) gives it to the user logged in at the seat, and \(user) is on none", fix: installRule)
        case (.seat, .installed(let path, _)), (.group, .installed(let path, _)):
            return .wrong(
                .device, device.name, "\(cannot), though \(path) covers it: udev has not applied it to this device yet",
                fix: "\(UdevRule.applyCommand) (or reconnect the remote)")
        case (_, .unreadable(let path, let reason)):
            return .wrong(.device, device.name, "\(cannot); \(path) cannot be read to tell why (\(reason))", fix: installRule)
        default:
            return .wrong(.device, device.name, "\(cannot): no udev rule gives it to \(user)", fix: installRule)
        }
    }

    private func grabbedElsewhere(_ device: InputDeviceInfo, at: String, holders: [NodeHolder]) -> Finding {
        guard !holders.isEmpty else {
            return .wrong(
                .device, device.name, "\(at): another program grabbed it, one of another user",
                fix: "stop it: `sudo fuser -v \(device.node)` names it")
        }
        let named = holders.map { "\($0.command) (pid \($0.pid))" }.joined(separator: ", ")
        let pids = holders.map { String($0.pid) }.joined(separator: " ")
        return .wrong(
            .device, device.name, "\(at): another program grabbed it; these have it open: \(named)",
            fix: "stop it (`kill \(pids)`), or keep it from grabbing \(device.name)")
    }

    /// What the running daemon reports of the device at `node`.
    private func daemonEntry(for node: String) -> DeviceMessage? {
        guard case .answered(let status) = facts.daemon else { return nil }
        return status.devices?.first { $0.path == node }
    }
}
