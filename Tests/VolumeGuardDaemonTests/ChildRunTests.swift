import Foundation
import Glibc
import GuardSettings
import Testing

@testable import GuardConfig

@Suite("A child run: its input, output and answer, all within the deadline")
struct ChildRunTests {
    @Test("The answer comes on a channel of its own: what the child writes on standard output and error does not spoil it")
    func answerApart() throws {
        let run = try ChildRun(
            executable: "/bin/sh", arguments: ["sh", "-c", "echo noise >&2; printf answer >&3; echo more"], environment: [],
            deadline: .seconds(10), answerDescriptor: 3)
        #expect(run.end == .exited(0))
        #expect(String(decoding: run.answer, as: UTF8.self) == "answer")
        #expect(String(decoding: run.output, as: UTF8.self) == "noise\nmore\n")
    }

    @Test("Input larger than any pipe holds reaches a child that writes as it reads, whole", .timeLimit(.minutes(1)))
    func inputWhileReading() throws {
        let input = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let run = try ChildRun(executable: "/bin/cat", arguments: ["cat"], input: input, environment: [], deadline: .seconds(30))
        #expect(run.end == .exited(0))
        #expect(run.output == input, "written while its output was read: neither waits for the other")
    }

    @Test("A child that neither reads its input nor ends is killed at the deadline, the write given up", .timeLimit(.minutes(1)))
    func neverReads() throws {
        let run = try ChildRun(
            executable: "/bin/sleep", arguments: ["sleep", "60"], input: [UInt8](repeating: 0x20, count: 1 << 20), environment: [],
            deadline: .milliseconds(200))
        #expect(run.end == .timedOut)
    }
}
