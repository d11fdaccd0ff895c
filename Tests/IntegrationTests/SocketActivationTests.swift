import Foundation
import GuardProtocol
import TestSupport
import Testing
import VolumeGuardDaemon

@Suite("Socket activation, as systemd does it", .serialized)
struct SocketActivationTests {
    /// `systemd-socket-activate` does what a `.socket` unit does: it binds and listens on `path` at once,
    /// and starts the daemon when the first client connects, with the socket as descriptor 3 and
    /// `LISTEN_FDS`/`LISTEN_PID` set. Like systemd, it passes on only the variables it is told to.
    ///
    /// It also closes every descriptor it does not pass, among them the one by which Foundation's
    /// `Process` learns that its child ended: `Process` would then wait for the daemon on the thread that
    /// reaps every child, and every later command of the test would hang. So a relay stays in between,
    /// holding that descriptor: it unblocks the signals `Process` leaves blocked in its children, hands
    /// SIGTERM and SIGHUP on, and exits with the daemon's status.
    static func activator(listeningOn path: String) -> [String] {
        let relay = """
            import signal, subprocess, sys
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            child = subprocess.Popen(sys.argv[1:])
            for number in (signal.SIGTERM, signal.SIGHUP):
                signal.signal(number, lambda number, _: child.send_signal(number))
            status = child.wait()
            sys.exit(status if status >= 0 else 128 - status)
            """
        // And, when set, what a sanitizer (scripts/sanitize) or qemu-user (scripts/test --release --arch arm64)
        // needs of the environment: systemd-socket-activate passes nothing else.
        let passed =
            ["PULSE_SERVER", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "NOTIFY_SOCKET"]
            + ["ASAN_OPTIONS", "TSAN_OPTIONS", "SWIFT_BACKTRACE", "QEMU_LD_PREFIX"].filter { ProcessInfo.processInfo.environment[$0] != nil }
        return ["/usr/bin/python3", "-c", relay, "/usr/bin/systemd-socket-activate", "--listen=\(path)"] + passed.map { "--setenv=\($0)" }
    }

    @Test("A client queued before the daemon starts is served; presses, READY=1, SIGTERM restores, the socket file stays")
    func activated() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [30000, 30000])
        let notify = try NotifySocket(in: server.runtimeDirectory)
        let environmentFile = server.runtimeDirectory + "/action-env"
        let config = server.runtimeDirectory + "/config.toml"
        try """
        [[action]]
        run = ["/bin/sh", "-c", "echo LISTEN_FDS=${LISTEN_FDS-unset} LISTEN_PID=${LISTEN_PID-unset} > \\"$1\\"", "sh", "\(environmentFile)"]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let socketPath = server.runtimeDirectory + "/volume-guard.sock"
        let daemon = try await Daemon(
            on: server, arguments: ["--config", config, "--step", "5"], environment: ["NOTIFY_SOCKET": notify.path],
            launcher: Self.activator(listeningOn: socketPath), waitUntilServing: false
        )

        // Nothing runs the daemon until a client connects: this one waits in the socket's queue, then is served.
        var early: RawSocket?
        #expect(
            await eventually {
                early = try? RawSocket(connectingTo: socketPath); return early != nil
            })
        early?.send(line: #"{"cmd":"status","id":"early"}"#)
        let reply = early?.readLine() ?? ""
        #expect(reply.contains(#""type":"status""#) && reply.contains(#""id":"early""#), "\(reply)")
        try await daemon.waitUntilServing()
        #expect(daemon.log.contains("socket activation: serving the socket systemd passed socket=\(socketPath)"), "\(daemon.log)")
        #expect(try Self.backlog(of: socketPath) == 4096, "the daemon's own backlog, not SwiftNIO's default")
        #expect(await eventually { notify.messages.contains("STATUS=guarding guard_a") })
        #expect(notify.messages.first == "READY=1", "\(notify.messages)")

        let subscriber = try await Subscriber(to: daemon)
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        #expect(try await subscriber.waitForPresses(1).map(\.direction) == [.up])
        try await expectVolume(server, "guard_a", [30000, 30000])
        #expect(try await daemon.status().presses.up == 1)
        // The variables named this process and its descriptors, not an action's.
        #expect(
            await eventually {
                (try? String(contentsOfFile: environmentFile, encoding: .utf8)) == "LISTEN_FDS=unset LISTEN_PID=unset\n"
            }, "\((try? String(contentsOfFile: environmentFile, encoding: .utf8)) ?? "no action ran")")

        #expect(await daemon.stop() == 0, "log:\n\(daemon.log)")
        #expect(try server.volume(of: "guard_a") == [30000, 30000])
        var info = stat()
        #expect(lstat(socketPath, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK, "the socket file is systemd's to remove")
    }

    @Test("The socket served is systemd's wherever it is: it keys the record of original levels; the configured one is left alone")
    func socketElsewhere() async throws {
        let server = try AudioServer(.pulseaudio)
        let configured = server.runtimeDirectory + "/configured/volume-guard.sock"
        let socketPath = server.runtimeDirectory + "/volume-guard.sock"
        let daemon = try await Daemon(
            on: server, arguments: ["--socket", configured, "--step", "5"], launcher: Self.activator(listeningOn: socketPath)
        )
        let subscriber = try await Subscriber(to: daemon)
        try server.pactl("set-sink-volume", "guard_a", "-5%")
        _ = try await subscriber.waitForPresses(1)

        #expect(daemon.log.contains("the configured socket is not used configured=\(configured)"), "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: configured))
        let record = OriginalsRecord.standardPath(environment: ["XDG_STATE_HOME": daemon.stateDirectory], socketPath: socketPath)
        #expect(FileManager.default.fileExists(atPath: record), "\(record)")
        #expect(await daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: record), "removed once the sink was given back")
    }

    /// The backlog of the listening socket at `path`, as the kernel reports it to `ss` (its Send-Q).
    private static func backlog(of path: String) throws -> Int? {
        let (_, output) = try command(["ss", "--unix", "--listening", "--numeric", "--no-header"])
        let columns = output.split(separator: "\n").map { $0.split(separator: " ") }
        return columns.first { $0.count > 4 && $0[4] == path }.flatMap { Int($0[3]) }
    }
}
