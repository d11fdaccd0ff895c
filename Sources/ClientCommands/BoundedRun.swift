import GuardConfig

/// A program run to its end within a deadline (`DoctorFacts.patience` unless given): its output's lines and
/// exit status, whatever the status (`systemctl is-enabled` exits 1 for a unit that is not enabled, and says
/// so), or why it did not run or end. `doctor` asks systemctl and gsettings so, and `learn --setup` runs udevadm,
/// loginctl and the user's systemctl.
enum BoundedRun {
    case answered([String], status: Int32)
    case failed(String)

    /// Runs `arguments`, the first a program looked up in the environment's PATH (or a path), with
    /// `input` on its standard input.
    init(_ arguments: [String], input: [UInt8] = [], environment: [String: String], deadline: Duration = DoctorFacts.patience) {
        let program = arguments[0]
        guard case .executable(let path) = ProgramLookup(program, path: environment["PATH"]) else {
            self = .failed("no \(program) in PATH")
            return
        }
        do {
            let run = try ChildRun(
                executable: path, arguments: arguments, input: input, environment: environment.map { "\($0.key)=\($0.value)" }, deadline: deadline)
            switch run.end {
            case .exited(let status):
                self = .answered(String(decoding: run.output, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init), status: status)
            case .signaled(let signal): self = .failed("\(program) was killed by signal \(signal)")
            case .timedOut: self = .failed("\(program) did not answer within \(deadline.components.seconds) s")
            }
        } catch {
            self = .failed("\(program) could not start: \(error)")
        }
    }

    /// Whether it ran and exited 0.
    var succeeded: Bool {
        if case .answered(_, status: 0) = self { true } else { false }
    }

    /// Why it failed; empty when it answered.
    var reason: String {
        guard case .failed(let reason) = self else { return "" }
        return reason
    }
}
