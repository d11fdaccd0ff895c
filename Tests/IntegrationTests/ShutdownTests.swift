import Foundation
import GuardProtocol
import TestSupport
import Testing

@Suite("Shutting down", .serialized)
struct ShutdownTests {
    struct Case: CustomStringConvertible, Sendable {
        var kind: AudioServer.Kind
        var signal: Int32
        var description: String { "\(kind) \(signal == SIGTERM ? "SIGTERM" : "SIGINT")" }
    }

    static let cases = AudioServer.Kind.underTest.flatMap { kind in [SIGTERM, SIGINT].map { Case(kind: kind, signal: $0) } }

    @Test("SIGTERM and SIGINT give back the original volume and mute exactly, remove the socket, exit 0", arguments: cases)
    func restoresOnSignal(_ test: Case) async throws {
        let server = try AudioServer(test.kind)
        try server.pactl("set-sink-volume", "guard_a", "100%")
        try server.pactl("set-sink-mute", "guard_a", "1")
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        try server.pactl("set-sink-mute", "guard_a", "0")
        _ = try await subscriber.waitForPresses(2)
        try await expectVolume(server, "guard_a", [65535, 65535])

        #expect(await daemon.stop(with: test.signal) == 0, "log:\n\(daemon.log)")
        #expect(try server.volume(of: "guard_a") == [65536, 65536])
        #expect(try server.isMuted("guard_a"))
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        // Subscribers are told, and their connections closed after the last line.
        #expect(await eventually { await subscriber.ended })
        #expect(await subscriber.states.last?.state == .stopped)
    }

    @Test("A SIGTERM the moment the socket is bound, before the services run, still ends the daemon cleanly", arguments: AudioServer.Kind.underTest)
    func signalWhileStarting(kind: AudioServer.Kind) async throws {
        let server = try AudioServer(kind)
        let daemon = try await Daemon(on: server, waitUntilServing: false)
        let bound = await eventually(within: .seconds(10), every: .milliseconds(1)) { FileManager.default.fileExists(atPath: daemon.socketPath) }
        #expect(bound)
        #expect(await daemon.stop() == 0, "killed by the signal, or failed; log:\n\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    @Test("A second daemon on the same socket refuses to start and leaves the first serving")
    func secondDaemon() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        let (status, _) = try command([Daemon.binary, "run", "--socket", daemon.socketPath], environment: server.environment)
        #expect(status != 0)
        #expect(try await daemon.status().state == .guarding)
    }
}
