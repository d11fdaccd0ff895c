import Foundation
import GuardProtocol
import TestSupport
import Testing
import VolumeGuardDaemon

@Suite("Many clients, slow clients", .serialized)
struct ManyClientsTests {
    @Test("A thousand subscribers each receive every press, with the daemon started under a low open-file limit")
    func thousandSubscribers() async throws {
        let hard = try #require(OpenFileLimit.raiseToHard(), "this process needs descriptors for its thousand clients")
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(
            socketPath: server.runtimeDirectory + "/volume-guard.sock", environment: server.environment,
            launcher: ["/usr/bin/prlimit", "--nofile=256:\(hard)", "--"]
        )
        #expect(try daemon.openFileLimit == Int(hard))

        let subscribers = try await withThrowingTaskGroup(of: Subscriber.self) { group in
            for _ in 0..<1000 {
                group.addTask { try await Subscriber(to: daemon) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(try await daemon.status().subscribers == 1000)

        let steps = ["+5%", "-5%", "-5%", "+5%", "+5%"]
        for (number, step) in steps.enumerated() {
            try server.pactl("set-sink-volume", "guard_a", step)
            for subscriber in subscribers {
                _ = try await subscriber.waitForPresses(number + 1)
            }
        }
        for subscriber in subscribers {
            #expect(await subscriber.presses.map(\.seq) == [1, 2, 3, 4, 5])
        }
    }

    @Test("A subscriber that never reads is cut loose while another receives every press; the daemon's memory stays bounded")
    func neverReader() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let daemon = try await Daemon(on: server, arguments: ["--step", "5"])
        let keys = try await KeyPresser(on: server, sink: "guard_a")
        let reader = try await Subscriber(to: daemon)
        let stalled = try RawSocket(connectingTo: daemon.socketPath)
        stalled.send(line: #"{"cmd":"subscribe"}"#)
        #expect(try await eventually { try await daemon.status().subscribers == 2 })
        let baseline = try daemon.anonymousKiB

        // Presses, 100 at a time, until the stalled subscriber is cut loose (once its socket's buffers, a
        // replay of the default history and the queue's headroom wait: about 1,500), and at most 3,000.
        var total = 0
        var peak = baseline
        while true {
            for _ in 0..<100 { try await keys.pressUp(by: 3277) }
            total += 100
            peak = max(peak, try daemon.anonymousKiB)
            guard total < 3000, try await daemon.status().subscribers == 2 else { break }
        }
        let presses = try await reader.waitForPresses(total)
        #expect(presses.map(\.seq) == Array(1...UInt64(total)))
        #expect(presses.allSatisfy { $0.count == 1 && $0.direction == .up })
        #expect(!(await reader.ended))

        #expect(try await daemon.status().subscribers == 1)
        #expect(daemon.log.contains("subscriber cut loose"))
        // What the stalled client finds when it reads at last: the presses that were on their way, in
        // order, then the end.
        let lines = try #require(stalled.readToEnd(), "the stalled subscriber was not disconnected")
        let seen = lines.dropFirst().compactMap { line -> UInt64? in
            if case .press(let press)? = ServerMessage(line: Array(line.utf8)) { press.seq } else { nil }
        }
        #expect(seen == Array(1...UInt64(seen.count)))
        #expect(seen.count < total)
        #expect(!Daemon.runsNatively || peak < baseline + 16 * 1024, "anonymous memory rose from \(baseline) KiB to \(peak) KiB")
    }

    @Test("Thousands of connections that come and go leave no descriptor and no subscriber behind")
    func churn() async throws {
        let server = try AudioServer(.pulseaudio)
        let daemon = try await Daemon(on: server)
        let subscriber = try await Subscriber(to: daemon)
        let baseline = try daemon.openFiles
        let memory = try daemon.anonymousKiB

        for round in 0..<4000 {
            let socket = try RawSocket(connectingTo: daemon.socketPath)
            switch round % 4 {
            case 0: break
            case 1: socket.send(line: #"{"cmd":"subscribe"}"#)
            case 2:
                socket.send(line: #"{"cmd":"subscribe","since":0}"#)
                _ = socket.readLine()
            default: socket.send(Array(#"{"cmd":"sta"#.utf8))
            }
        }
        // A connection's descriptor closes before its subscription is dropped: wait for both.
        let settled = try await eventually { try daemon.openFiles == baseline }
        let unsubscribed = try await eventually { try await daemon.status().subscribers == 1 }
        let (files, resident, subscribers) = (try daemon.openFiles, try daemon.anonymousKiB, try await daemon.status().subscribers)
        #expect(settled, "\(files) files open, \(baseline) before")
        #expect(unsubscribed, "\(subscribers) subscribers, 1 expected")
        #expect(!Daemon.runsNatively || resident < memory + 16 * 1024, "anonymous memory rose from \(memory) KiB to \(resident) KiB")

        try server.pactl("set-sink-volume", "guard_a", "+5%")
        #expect(try await subscriber.waitForPresses(1).count == 1)
    }
}
