import FoundationEssentials
import GuardConfig

/// Runs a program of the system (udevadm, loginctl, runuser) to its end, for `learn`'s setup: bounded, as
/// every wait of the setup's commands is, with its output shown unless `quiet`.
enum Spawn {
    /// Long enough for `udevadm trigger --settle` on a slow machine.
    static let deadline: Duration = .seconds(60)

    /// The exit status of `arguments` (its program by path, or found on PATH), or -1 when it could not
    /// start, was killed or ran past `deadline`.
    static func run(_ arguments: [String], quiet: Bool = false) -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        guard case .executable(let path) = ProgramLookup(arguments[0], path: environment["PATH"]),
            let run = try? ChildRun(
                executable: path, arguments: arguments, environment: environment.map { "\($0.key)=\($0.value)" }, deadline: deadline)
        else { return -1 }
        let output = String(decoding: run.output, as: UTF8.self)
        if !quiet && !output.isEmpty { printLine(output.hasSuffix("\n") ? String(output.dropLast()) : output) }
        guard case .exited(let status) = run.end else { return -1 }
        return status
    }
}
