import GuardProtocol
import VolumeGuardCore

/// What `learn` says it learned: each device heard, as `devices` would describe it, with the match the
/// config file names it by and why; the keys; and the source, with why.
struct LearnReport {
    var learned: LearnedSetup
    var learning: Learning
    var sinkWatched: Bool
    var root: Bool

    var lines: [String] {
        var lines: [String] = []
        var shown: [String] = []
        for heard in learning.learned where !shown.contains(heard.device.node) {
            shown.append(heard.device.node)
            let device = heard.device
            lines.append("")
            lines.append("device  \"\(device.name)\"")
            lines.append(field("node", device.node))
            lines.append(field("ids", device.ids))
            lines.append(field("bus", device.busName))
            lines.append(field("address", device.address ?? "none"))
            lines.append(field("stable", device.stablePaths.isEmpty ? "none" : device.stablePaths.joined(separator: ", ")))
            let keys = learning.learned.filter { $0.device.node == device.node }.map { heard in
                KeyNames.name(heard.key) + (heard.sinkChange.map { " (the desktop turned it into a volume change, \($0.rawValue))" } ?? "")
            }
            lines.append(field("keys", keys.joined(separator: ", ")))
            if let choice = learned.devices.first(where: { $0.match.matches(device) }) {
                lines.append(field("named by", "\(choice.match): \(choice.reason)" + (choice.fragile ? " (warning)" : "")))
            }
        }
        if !learning.sinkAlone.isEmpty {
            lines.append("")
            lines.append("sink    changed: " + learning.sinkAlone.map(\.rawValue).joined(separator: ", "))
        }
        lines.append("")
        lines.append("source  \(learned.source.rawValue): \(learned.sourceReason(sinkWatched: sinkWatched, root: root))")
        return lines
    }

    private func field(_ label: String, _ value: String) -> String {
        "    " + label + String(repeating: " ", count: max(1, 10 - label.count)) + value
    }
}
