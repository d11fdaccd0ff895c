import Foundation
import FuzzTargets
import Testing

/// Every input in Fuzz/corpus (the seeds) and Fuzz/crashers (what a fuzzer once found to crash, hang or
/// trap), through its target: each crasher stays a regression test once it is mended.
@Suite("Fuzz inputs replayed")
struct ReplayTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func inputs(of target: FuzzTarget, in folder: String) -> [URL] {
        let directory = fuzz.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test("Each target has seeds, and every seed and crasher runs through it", arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) throws {
        let seeds = Self.inputs(of: target, in: "corpus")
        #expect(!seeds.isEmpty, "Fuzz/corpus/\(target.rawValue) has no seeds")
        for input in seeds + Self.inputs(of: target, in: "crashers") {
            target.run(Array(try Data(contentsOf: input)))
        }
    }
}
