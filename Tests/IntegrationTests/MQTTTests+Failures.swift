import Foundation
import GuardProtocol
import TestSupport
import Testing

extension MQTTTests {
    @Test("A wrong password is an error with its fix in status and the log, never the password; the guard goes on")
    func wrongPassword() async throws {
        let server = try AudioServer(.pulseaudio)
        let broker = try Broker(["--password", "booth:right-horse"])
        let live = try await BrokerSubscriber(to: broker, topics: ["vg-test/login/#"])
        let passwordFile = server.runtimeDirectory + "/mqtt-password"
        try "wrong-horse\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let config =
            brokerConfig(port: broker.port) + """
                mqtt-topic = "vg-test/login"
                mqtt-user = "booth"
                mqtt-password-file = "\(passwordFile)"

                """
        let daemon = try await Daemon(on: server, config: config)
        let socket = try await Subscriber(to: daemon)

        let refused = try await daemon.waitForBrokerError()
        let error = try #require(refused.error)
        let fix = try #require(refused.fix, "no fix for \(error)")
        #expect(error.contains("refused"), "\(error)")
        #expect(fix.contains("mqtt-password-file") && fix.contains("mqtt-user"), "\(fix)")
        #expect(daemon.log.contains(error) && daemon.log.contains(fix), "log:\n\(daemon.log)")
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        #expect(try await socket.waitForPresses(1).map(\.direction) == [.up])
        #expect(try await daemon.status().state == .guarding)
        let status = try outcome(of: [Daemon.binary, "status", "--socket", daemon.socketPath, "--json"])
        let arguments = try String(contentsOfFile: "/proc/\(daemon.pid)/cmdline", encoding: .utf8)
        // doctor tries the broker itself, with the daemon's settings, and names the fix.
        let doctor = try DoctorTests.doctor(["--socket", daemon.socketPath], on: server, config: config)
        #expect(doctor.status != 0)
        #expect(doctor.output.contains("FAIL  mqtt: ") && doctor.output.contains("mqtt-password-file"), "\(doctor.output)")
        for place in [daemon.log, status.output, arguments, doctor.output] {
            #expect(!place.contains("horse"), "a password shown: \(place)")
        }

        // The file is read at each attempt: put right, the next one connects, and the press goes out.
        try "right-horse\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        try await daemon.waitForBroker("connected", within: .seconds(40))
        try await live.waitFor("online", on: "vg-test/login/availability")
        await expectSameEvents([live], socket, on: "vg-test/login/events")
        let mended = try DoctorTests.doctor(["--socket", daemon.socketPath], on: server, config: config)
        #expect(mended.output.contains("ok    mqtt: the broker at mqtt://127.0.0.1:\(broker.port) accepts the connection"), "\(mended.output)")
    }

    @Test(
        "A broker whose certificate the CAs do not sign is a TLS error with its fix; with its CA in mqtt-ca-file, the link connects and the press made meanwhile goes out"
    )
    func wrongCA() async throws {
        let server = try AudioServer(.pulseaudio)
        let broker = try Broker(["--tls"])
        let (tlsPort, ca) = (try #require(broker.tlsPort), try #require(broker.ca))
        let live = try await BrokerSubscriber(to: broker, topics: ["vg-test/tls/#"])
        let config = brokerConfig(port: tlsPort, tls: true) + "mqtt-topic = \"vg-test/tls\"\n"
        // The system's CAs, which never signed the test's CA.
        let daemon = try await Daemon(on: server, config: config)
        let socket = try await Subscriber(to: daemon)

        let failing = try await daemon.waitForBrokerError()
        let error = try #require(failing.error)
        #expect(error.lowercased().contains("certificate"), "\(error)")
        #expect(failing.fix?.contains("mqtt-ca-file") == true, "\(failing)")
        #expect(daemon.log.contains(error), "log:\n\(daemon.log)")
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        #expect(try await socket.waitForPresses(1).map(\.direction) == [.up])
        #expect(try await daemon.status().state == .guarding)

        try await daemon.reload(config + "mqtt-ca-file = \"\(ca)\"\n")
        try await daemon.waitForBroker("connected")
        #expect(try await daemon.brokerStatus()?.error == nil)
        try await live.waitFor("online", on: "vg-test/tls/availability")
        try server.pactl("set-sink-volume", "guard_a", "-5%")
        _ = try await socket.waitForPresses(2)
        // The press made while the link failed goes out on the link of the new settings, before the later one.
        await expectSameEvents([live], socket, on: "vg-test/tls/events")
        #expect(live.events(on: "vg-test/tls/events").first == "press:up@1")
    }

    @Test("A broker that accepts and never answers: status says so, and the guard goes on")
    func silentBroker() async throws {
        let server = try AudioServer(.pulseaudio)
        let broker = try Broker()
        let silent = try broker.silentListener()
        let daemon = try await Daemon(on: server, config: brokerConfig(port: silent))
        let socket = try await Subscriber(to: daemon)
        try server.pactl("set-sink-volume", "guard_a", "+5%")
        #expect(try await socket.waitForPresses(1).map(\.direction) == [.up])
        #expect(try await daemon.status().state == .guarding)

        let failing = try await daemon.waitForBrokerError(within: .seconds(30))
        #expect(failing.error?.contains("no answer") == true, "\(failing)")
        #expect(["waiting", "connecting"].contains(failing.state), "\(failing)")
        #expect(failing.queued >= 1)
        try server.pactl("set-sink-volume", "guard_a", "-5%")
        #expect(try await socket.waitForPresses(2).map(\.direction) == [.up, .down])
    }
}
