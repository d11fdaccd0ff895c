import Foundation
import GuardProtocol
import TestSupport
import Testing

/// Tablets and phones paired with the HTTP listener, against the real daemon and its `pair`, `paired`
/// and `revoke`: tokens asked for on loopback (`--http-tokens`) as they always are on another address.
/// Across hosts of their own (network namespaces, and Chromium on the tablet's side) in Tests/Browser.
@Suite("Paired clients of the HTTP listener", .serialized)
struct PairingTests {
    static let listener = ["--http", "127.0.0.1:0", "--http-tokens"]

    /// Runs `volume-guard ARGUMENTS` for `daemon`: its socket, and its state directory, where the pairings go.
    func volumeGuard(_ arguments: [String], for daemon: Daemon) throws -> (status: Int32, output: String, errors: String) {
        try outcome(of: [Daemon.binary] + arguments + ["--socket", daemon.socketPath], environment: ["XDG_STATE_HOME": daemon.stateDirectory])
    }

    /// Pairs `name` as `role`; its token, read from the URL `pair` prints.
    func pair(_ name: String, role: String, for daemon: Daemon) throws -> String {
        let paired = try volumeGuard(["pair", name, "--role", role], for: daemon)
        #expect(paired.status == 0, "\(paired.errors)")
        guard let token = paired.output.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("http://") })?.split(separator: "token=").last
        else { throw TestFailure("no URL in: \(paired.output)") }
        return String(token)
    }

    func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    @Test("A trigger client's press reaches every subscriber and runs its action once, named by the client; a watch client's is refused")
    func press() async throws {
        let server = try AudioServer(.pulseaudio)
        let output = server.runtimeDirectory + "/action-env"
        let config = server.runtimeDirectory + "/config.toml"
        try """
        [[action]]
        name = "photo"
        on = "up"
        source = "client"
        run = ["/bin/sh", "-c", "env | grep ^VOLUME_GUARD_ | sort >> \\"$1\\"", "sh", "\(output)"]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await Daemon(on: server, arguments: Self.listener + ["--config", config])
        let port = try await daemon.httpPort()
        let tablet = try pair("tablet", role: "trigger", for: daemon)
        let screen = try pair("screen", role: "watch", for: daemon)
        let subscriber = try await Subscriber(to: daemon)

        let pressed = try HTTPClient.request(port: port, "/press?key=up", method: "POST", headers: bearer(tablet))
        #expect(pressed.status == 200)
        #expect(pressed.body == #"{"seq":1,"type":"pressed"}"# + "\n")
        let press = try #require(try await subscriber.waitForPresses(1).first)
        #expect(press.source == .client && press.client == "tablet" && press.direction == .up && press.seq == 1)
        #expect(
            await eventually {
                (try? String(contentsOfFile: output, encoding: .utf8)) == """
                    VOLUME_GUARD_CLIENT=tablet
                    VOLUME_GUARD_COUNT=1
                    VOLUME_GUARD_DIRECTION=up
                    VOLUME_GUARD_SEQ=1
                    VOLUME_GUARD_SOURCE=client

                    """
            }, "\((try? String(contentsOfFile: output, encoding: .utf8)) ?? "nothing")")

        let watching = try HTTPClient.request(port: port, "/press?key=up", method: "POST", headers: bearer(screen))
        #expect(watching.status == 403 && watching.body.contains("forbidden-role"))
        #expect(try HTTPClient.request(port: port, "/press?key=up", method: "POST").status == 401)
        #expect(try HTTPClient.request(port: port, "/status").status == 401, "http-tokens: loopback needs a token too")
        #expect(try HTTPClient.request(port: port, "/status?token=\(screen)").status == 200)
        #expect(try HTTPClient.request(port: port, "/client", headers: bearer(screen)).body == #"{"name":"screen","role":"watch","type":"client"}"# + "\n")
        // Nothing else was published, and the action ran once.
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await daemon.status().lastSeq == 1)
        #expect(try String(contentsOfFile: output, encoding: .utf8).components(separatedBy: "VOLUME_GUARD_SEQ=").count == 2)

        let listed = try volumeGuard(["paired"], for: daemon)
        #expect(listed.status == 0)
        #expect(listed.output.contains("screen  watch") && listed.output.contains("tablet  trigger"), "\(listed.output)")
        let file = try String(contentsOfFile: daemon.stateDirectory + "/volume-guard/pairings.json", encoding: .utf8)
        #expect(!file.contains(tablet) && !file.contains(screen), "only the tokens' hashes are kept")
        #expect(try FileManager.default.attributesOfItem(atPath: daemon.stateDirectory + "/volume-guard/pairings.json")[.posixPermissions] as? Int == 0o600)
    }

    @Test("Revoking a client closes its open stream at once and refuses its token; pairing a name again revokes the old token")
    func revoke() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server, arguments: Self.listener)
        let port = try await daemon.httpPort()
        let tablet = try pair("tablet", role: "trigger", for: daemon)
        let phone = try pair("phone", role: "watch", for: daemon)
        let stream = try EventStreamClient(port: port, "/events?token=\(tablet)")
        let other = try EventStreamClient(port: port, "/events", headers: bearer(phone))
        #expect(stream.status == 200 && other.status == 200)
        #expect(stream.next()?.type == "subscribed")

        let revoked = try volumeGuard(["revoke", "tablet"], for: daemon)
        #expect(revoked.status == 0, "\(revoked.errors)")
        #expect(stream.ends(within: .seconds(10)), "the revoked client's stream is closed")
        #expect(try HTTPClient.request(port: port, "/status", headers: bearer(tablet)).status == 401)
        #expect(daemon.log.contains("closing an event stream: its client's token was revoked client=tablet"))
        #expect(!other.ends(within: .milliseconds(500)), "another client's stream stays open")
        #expect(try volumeGuard(["revoke", "tablet"], for: daemon).status == 1, "no such client")

        let again = try pair("phone", role: "watch", for: daemon)
        #expect(other.ends(within: .seconds(10)), "pairing phone again revoked its old token")
        #expect(try HTTPClient.request(port: port, "/status", headers: bearer(phone)).status == 401)
        #expect(try HTTPClient.request(port: port, "/status", headers: bearer(again)).status == 200)
        #expect(!daemon.log.contains(tablet) && !daemon.log.contains(again), "no token is ever logged")
    }

    @Test("SIGHUP reads the pairings file again: a client taken out of it by hand is cut off; a damaged file keeps the pairings in use")
    func hangup() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server, arguments: Self.listener)
        let port = try await daemon.httpPort()
        let tablet = try pair("tablet", role: "watch", for: daemon)
        let path = daemon.stateDirectory + "/volume-guard/pairings.json"
        let paired = try String(contentsOfFile: path, encoding: .utf8)
        try "{".write(toFile: path, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        #expect(await eventually { daemon.log.contains("the pairings cannot be read; keeping the ones in use") })
        #expect(try HTTPClient.request(port: port, "/status", headers: bearer(tablet)).status == 200)
        let stream = try EventStreamClient(port: port, "/events?token=\(tablet)")
        #expect(stream.next()?.type == "subscribed")
        try #"{"clients":[]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        #expect(stream.ends(within: .seconds(10)), "taken out of the file, its stream is closed")
        #expect(try HTTPClient.request(port: port, "/status", headers: bearer(tablet)).status == 401)
        try paired.write(toFile: path, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        #expect(await eventually { (try? HTTPClient.request(port: port, "/status", headers: bearer(tablet)).status) == 200 })
    }

    @Test("Wrong tokens are answered 401, then 429 for a while, whatever is sent; the log hears of the address once")
    func guessing() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server, arguments: Self.listener)
        let port = try await daemon.httpPort()
        let tablet = try pair("tablet", role: "trigger", for: daemon)
        var statuses: [Int] = []
        for guess in 0..<8 {
            statuses.append(try HTTPClient.request(port: port, "/status?token=guess\(guess)").status)
        }
        #expect(statuses == [401, 401, 401, 401, 401, 429, 429, 429])
        let refused = try HTTPClient.request(port: port, "/status", headers: bearer(tablet))
        #expect(refused.status == 429, "a right token from a refused address is not told apart from a wrong one")
        #expect(refused.headers["retry-after"].flatMap(Int.init).map { (1...60).contains($0) } == true)
        #expect(daemon.log.components(separatedBy: "a wrong token came from 127.0.0.1").count == 2, "logged once")
        #expect(!daemon.log.contains("guess"), "no token is ever logged")
    }

    @Test("Fifty tablets watching at once each get every press")
    func fiftyWatchers() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server, arguments: Self.listener)
        let port = try await daemon.httpPort()
        var streams: [EventStreamClient] = []
        for index in 0..<50 {
            let stream = try EventStreamClient(port: port, "/events?states=false&token=\(try pair("tablet-\(index)", role: "watch", for: daemon))")
            #expect(stream.status == 200)
            #expect(stream.next()?.type == "subscribed")
            streams.append(stream)
        }
        #expect(try await daemon.status().http?.clients == 50)
        let trigger = try pair("remote", role: "trigger", for: daemon)
        #expect(try HTTPClient.request(port: port, "/press?key=down&gesture=press", method: "POST", headers: bearer(trigger)).status == 200)
        for stream in streams {
            let press = stream.next()
            #expect(press?.press?.client == "remote" && press?.press?.direction == .down)
        }
    }
}
