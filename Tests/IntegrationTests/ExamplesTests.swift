import Foundation
import GuardProtocol
import TestSupport
import Testing

@Suite("The example clients", .serialized)
struct ExamplesTests {
    static let examples = repositoryRoot.appendingPathComponent("examples").path
    /// The volume_guard package that examples/client.py imports, from the checkout rather than installed.
    static let pythonPackage = repositoryRoot.appendingPathComponent("clients/python/src").path

    @Test("examples/watch.sh and examples/client.py print replayed and live presses; client.py resumes across a daemon restart")
    func examples() async throws {
        let server = try AudioServer(.pulseaudio)
        try server.setVolume(of: "guard_a", raw: [32768, 32768])
        let first = try await Daemon(on: server, arguments: ["--step", "5"])
        let environment = ["VOLUME_GUARD_SOCKET": first.socketPath]
        var keys = try await KeyPresser(on: server, sink: "guard_a")
        for _ in 0..<2 { try await keys.pressUp(by: 3277) }

        let shell = try BackgroundCommand([Self.examples + "/watch.sh", "0"], environment: environment)
        let python = try BackgroundCommand(
            ["python3", Self.examples + "/client.py", "--since", "1"],
            environment: environment.merging(["PYTHONPATH": Self.pythonPackage]) { $1 }
        )
        #expect(await eventually { seqs(in: shell.output) == [1, 2] && seqs(in: python.output) == [2] })
        try await keys.pressUp(by: 3277)
        #expect(await eventually { seqs(in: shell.output) == [1, 2, 3] && seqs(in: python.output) == [2, 3] })
        #expect(shell.output.split(separator: "\n").first?.hasSuffix("  up  guard_a  #1") == true, "\(shell.output)")

        // A new daemon counts from 1 again: the Python client notices and replays all of its presses,
        // including those made before it reconnected.
        #expect(await first.stop() == 0)
        #expect(shell.wait() == 0)
        let second = try await Daemon(on: server, arguments: ["--step", "5"])
        keys = try await KeyPresser(on: server, sink: "guard_a")
        try await keys.pressUp(by: 3277)
        #expect(await eventually { seqs(in: python.output) == [2, 3, 1] }, "\(python.output)")
        try await keys.pressUp(by: 3277)
        #expect(await eventually { seqs(in: python.output) == [2, 3, 1, 2] }, "\(python.output)")
        #expect(try await second.status().lastSeq == 2)
    }
}

/// The seqs of the press lines that `volume-guard watch` and the examples print (`... #SEQ`), in order.
private func seqs(in output: String) -> [Int] {
    output.split(separator: "\n").compactMap { line in
        line.split(separator: " ").last.flatMap { $0.hasPrefix("#") ? Int($0.dropFirst()) : nil }
    }
}
