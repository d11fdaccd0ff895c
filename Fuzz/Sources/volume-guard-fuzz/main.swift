import CLibFuzzer
import FuzzTargets
import Glibc

/// The target this run fuzzes, named by VOLUME_GUARD_FUZZ_TARGET: one executable serves them all. The
/// rest of the command line is libFuzzer's (`-max_total_time=60 CORPUS...`).
enum Fuzzed {
    static let target: FuzzTarget = {
        guard let name = getenv("VOLUME_GUARD_FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            let message = "volume-guard-fuzz: set VOLUME_GUARD_FUZZ_TARGET to one of: \(names)\n"
            _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            exit(2)
        }
        return target
    }()
}

/// One input, to the target. Named as libFuzzer names it: its own main, which `-sanitize=fuzzer` links
/// in beside SwiftPM's, asks for it.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    Fuzzed.target.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

_ = Fuzzed.target
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
