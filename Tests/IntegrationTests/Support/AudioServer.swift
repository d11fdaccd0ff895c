import Foundation
import TestSupport

/// A private, real audio server started by `scripts/audio-server` in its own runtime directory, with
/// null sinks. Tests drive it with `pactl`, exactly as a desktop's volume keys would.
final class AudioServer: @unchecked Sendable {
    enum Kind: String, CaseIterable, Sendable, CustomStringConvertible {
        case pulseaudio
        case pipewire

        var description: String { rawValue }

        /// The kinds to test: `VOLUME_GUARD_TEST_SERVERS` (comma-separated), else both.
        static var underTest: [Kind] {
            guard let list = ProcessInfo.processInfo.environment["VOLUME_GUARD_TEST_SERVERS"] else { return allCases }
            return list.split(separator: ",").compactMap { Kind(rawValue: String($0)) }
        }
    }

    let kind: Kind
    /// XDG_RUNTIME_DIR, PULSE_SERVER and the script's own variables; a restart changes the process group.
    private(set) var environment: [String: String]

    /// Starts a server with `sinks` ("name" or "name:channels"); the first becomes the default sink.
    /// `preloaded`, the server loads them itself as it starts (and restarts), before its first client
    /// connects. Throws (failing the test) when the server cannot start: a test never skips for want of one.
    init(_ kind: Kind, sinks: [String] = ["guard_a", "guard_b"], preloaded: Bool = false) throws {
        self.kind = kind
        environment = try Self.script(["--\(kind)", "--sinks", sinks.joined(separator: ",")] + (preloaded ? ["--preload"] : []))
    }

    /// Runs scripts/audio-server and reads the environment it prints.
    private static func script(_ arguments: [String], environment: [String: String] = [:]) throws -> [String: String] {
        let script = repositoryRoot.appendingPathComponent("scripts/audio-server").path
        let (status, output) = try command([script] + arguments, environment: environment)
        guard status == 0 else { throw TestFailure("scripts/audio-server \(arguments.joined(separator: " ")) failed with status \(status)") }
        var printed: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            printed[String(pair[0])] = String(pair[1]).trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
        }
        guard printed["PULSE_SERVER"] != nil, printed["AUDIO_SERVER_PGID"] != nil else {
            throw TestFailure("scripts/audio-server printed no environment:\n\(output)")
        }
        return printed
    }

    /// Starts the server again, same kind and sinks, at the same address (after `crash()`, or ending it).
    /// `sessionDelay`: PipeWire's session manager starts that much after pipewire-pulse, as on a slow login.
    func restart(sessionDelay: Duration = .zero) throws {
        let delay = Double(sessionDelay.components.seconds) + Double(sessionDelay.components.attoseconds) / 1e18
        environment = try Self.script(["--restart"], environment: environment.merging(["AUDIO_SERVER_SESSION_DELAY": "\(delay)"]) { $1 })
    }

    deinit {
        _ = try? command([repositoryRoot.appendingPathComponent("scripts/audio-server").path, "--stop"], environment: environment)
    }

    var runtimeDirectory: String { environment["XDG_RUNTIME_DIR"]! }

    /// What the server's daemons logged (for PipeWire: pipewire, WirePlumber and pipewire-pulse).
    var log: String {
        (try? String(contentsOfFile: environment["AUDIO_SERVER_DIR"]! + "/server.log", encoding: .utf8)) ?? ""
    }

    /// The address libpulse clients use.
    var address: String { environment["PULSE_SERVER"]! }

    /// Kills the whole server at once, as a crash would.
    func crash() {
        if let group = environment["AUDIO_SERVER_PGID"].flatMap(Int32.init) { kill(-group, SIGKILL) }
    }

    /// Stops (`true`) or continues the whole server, as a server that hangs would be: its clients' requests
    /// wait unanswered.
    func freeze(_ frozen: Bool) {
        if let group = environment["AUDIO_SERVER_PGID"].flatMap(Int32.init) { kill(-group, frozen ? SIGSTOP : SIGCONT) }
    }

    /// Runs `pactl` against this server.
    @discardableResult
    func pactl(_ arguments: String...) throws -> String {
        try pactl(arguments)
    }

    @discardableResult
    func pactl(_ arguments: [String]) throws -> String {
        let (status, output) = try command(["pactl"] + arguments, environment: environment)
        guard status == 0 else { throw TestFailure("pactl \(arguments.joined(separator: " ")) failed with status \(status)") }
        return output
    }

    /// A sink's raw volume per channel, as another client reads it.
    func volume(of sink: String) throws -> [UInt32] {
        let output = try pactl("get-sink-volume", sink)
        let line = output.split(separator: "\n").first { $0.hasPrefix("Volume:") } ?? ""
        return line.split(separator: ",").compactMap { channel in
            channel.split(separator: ":").last?.split(separator: "/").first
                .flatMap { UInt32($0.trimmingCharacters(in: .whitespaces)) }
        }
    }

    func isMuted(_ sink: String) throws -> Bool {
        try pactl("get-sink-mute", sink).contains("yes")
    }

    /// Sets raw per-channel values (`pactl` takes a bare integer as raw).
    func setVolume(of sink: String, raw: [UInt32]) throws {
        try pactl(["set-sink-volume", sink] + raw.map(String.init))
    }

    /// Adds a null sink, as plugging in a device would; returns its module, for `unplug`.
    func plug(_ sink: String, channels: Int = 2) throws -> String {
        try pactl("load-module", "module-null-sink", "sink_name=\(sink)", "channels=\(channels)")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Removes a sink added by `plug`, as unplugging the device would.
    func unplug(module: String) throws {
        try pactl("unload-module", module)
    }

    /// Makes `sink` the default and waits until the server reports it (WirePlumber applies it late).
    func setDefaultSink(_ sink: String) async throws {
        try pactl("set-default-sink", sink)
        let applied = try await eventually { try pactl("get-default-sink").trimmingCharacters(in: .whitespacesAndNewlines) == sink }
        guard applied else { throw TestFailure("default sink never became \(sink)") }
    }
}
