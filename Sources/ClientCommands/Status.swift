import ArgumentParser
import Glibc
import GuardProtocol
import VolumeGuardClient

public struct Status: AsyncParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(abstract: "Show what the daemon is doing.")

    @OptionGroup var socket: SocketOptions

    @Flag(help: "Print the daemon's raw JSON reply.")
    var json = false

    public func run() async throws {
        try await talkToDaemon(at: socket.path) { client in
            try await client.withSession { session in
                try await session.send(Request(.status))
                guard let line = try await session.nextLine() else { throw GuardClient.Failure.closed }
                switch ServerMessage(line: Array(line.utf8)) {
                case .status(let status): print(json ? line : StatusReport(status).text)
                case .error(let error): try fail(with: error)
                default: throw GuardClient.Failure.closed
                }
            }
        }
    }
}

/// The human-readable form of a status reply.
struct StatusReport {
    let text: String

    init(_ status: StatusMessage) {
        func level(_ level: LevelMessage?) -> String {
            guard let level else { return "-" }
            return "\(twoDecimals(level.percent)) % (raw \(level.raw.map(String.init).joined(separator: "/")))"
        }
        let presses = status.presses
        var lines = ["state       \(status.state.rawValue)"]
        if status.source != "sink" { lines.append("source      \(status.source)") }
        if status.source != "input" {
            lines += [
                "sink        \(status.sink ?? "-")",
                "held        \(level(status.held))",
                "original    \(level(status.original))\(status.muted == true ? ", muted" : "")",
            ]
        }
        for device in status.devices ?? [] {
            lines.append("device      \(Self.describe(device))")
        }
        for action in status.actions ?? [] {
            lines.append("action      \(Self.describe(action))")
        }
        lines += [
            "presses     up \(presses.up), down \(presses.down), mute \(presses.mute) (last seq \(status.lastSeq))",
            "subscribers \(status.subscribers)",
        ]
        if let server = status.server { lines.append("server      \(server)") }
        if let http = status.http {
            lines.append("http        \(http.address), event streams \(http.clients), connections \(http.connections)")
        }
        if let mqtt = status.mqtt { lines.append("mqtt        \(Self.describe(mqtt))") }
        let uptime = Int(status.uptimeSeconds)
        lines.append("uptime      \(uptime / 3600)h \(uptime / 60 % 60)m \(uptime % 60)s")
        text = lines.joined(separator: "\n")
    }

    /// The broker: where, its connection, what waits for it, and the last failure with its fix.
    static func describe(_ broker: BrokerStatusMessage) -> String {
        var text = "\(broker.broker): \(broker.state)\(broker.since.map { " since \($0)" } ?? ""), queued \(broker.queued)"
        if broker.dropped > 0 { text += ", dropped \(broker.dropped)" }
        if let error = broker.error { text += ": \(error)" }
        if let fix = broker.fix { text += "\n            \(fix)" }
        return text
    }

    /// One input device: what it is, what the daemon does with it, and why not when it cannot.
    static func describe(_ device: DeviceMessage) -> String {
        guard let name = device.name, let path = device.path else { return "\(device.match): \(device.state.rawValue) (no such device now)" }
        var text = "\(name) (\(path)\(device.ids.map { ", \($0)" } ?? "")\(device.address.map { ", \($0)" } ?? "")): \(device.state.rawValue)"
        if let problem = device.problem { text += ": \(problem.error)" }
        if let key = device.lastKey { text += ", last key \(key)" }
        if let problem = device.problem { text += "\n            \(problem.fix)" }
        return text
    }
}

extension StatusReport {
    /// One action: the gesture it runs on and what waiting for a tap costs, its counts, and how its last
    /// run went.
    static func describe(_ action: ActionMessage) -> String {
        var text = action.name
        if let gesture = action.gesture { text += " on \(gesture.rawValue)" }
        if let delay = action.tapDelay {
            let input = delay.input.map { milliseconds in
                guard delay.release == true else { return "\(milliseconds) ms on input" }
                return milliseconds > 0 ? "\(milliseconds) ms and for the key's release on input" : "for the key's release on input"
            }
            let waits = [input, delay.sink.map { "\($0) ms on the sink" }].compactMap { $0 }
            if !waits.isEmpty { text += " (waits \(waits.joined(separator: ", ")))" }
        }
        text += ": \(action.runs) run\(action.runs == 1 ? "" : "s"), \(action.dropped) dropped"
        guard let last = action.last else { return text }
        text += "; last #\(last.seq) at \(last.time): "
        switch last.result {
        case .running: text += "running"
        case .exited: text += "exited \(last.status ?? 0)"
        case .signaled: text += "killed by signal \(last.signal ?? 0)"
        case .timedOut: text += "timed out"
        case .failed: text += "could not run: \(last.error ?? "-")"
        }
        if let seconds = last.seconds { text += " after \(twoDecimals(seconds)) s" }
        return text
    }
}

/// `value` with two decimals, as printf's `%.2f` writes it in the C locale a Swift program runs in
/// (rounded from the exact binary value, as `String(format:)` did: the same text, byte for byte).
/// `String(format:)` itself is Foundation's, and importing Foundation links ICU into the executable.
private func twoDecimals(_ value: Double) -> String {
    // The longest `%.2f` of a Double, that of -Double.greatestFiniteMagnitude, is 313 characters.
    var text = [CChar](repeating: 0, count: 320)
    let count = withVaList([value]) { vsnprintf(&text, text.count, "%.2f", $0) }
    return String(decoding: text.prefix(Int(count)).map(UInt8.init(bitPattern:)), as: UTF8.self)
}
