import GuardConfig

/// A program run to its end within `DoctorFacts.patience`: its output's lines, whatever its exit status
/// (`systemctl is-enabled` exits 1 for a unit that is not enabled, and says so), or why it did not run or end.
enum BoundedRun {
    case answered([String])
    case failed(String)

    /// Runs `arguments`, the first a program looked up in the environment's PATH.
    init(_ arguments: [String], environment: [String: String]) {
        let program = arguments[0]
        guard case .executable(let path) = ProgramLookup(program, path: environment["PATH"]) else {
            self = .failed("no \(program) in PATH")
            return
        }
        do {
            let run = try ChildRun(
                executable: path, arguments: arguments, environment: environment.map { "\($0.key)=\($0.value)" }, deadline: DoctorFacts.patience)
            switch run.end {
            case .exited: self = .answered(String(decoding: run.output, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init))
            case .signaled(let signal): self = .failed("\(program) was killed by signal \(signal)")
            case .timedOut: self = .failed("\(program) did not answer within \(DoctorFacts.patience.components.seconds) s")
            }
        } catch {
            self = .failed("\(program) could not start: \(error)")
        }
    }

    /// Why it failed; empty when it answered.
    var reason: String {
        guard case .failed(let reason) = self else { return "" }
        return reason
    }
}
