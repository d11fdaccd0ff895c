import GuardProtocol
import GuardSettings

/// The actions, each program found and executable, and the HTTP listener, connected to.
extension Diagnosis {
    var actions: [Finding] {
        facts.programs.map { program in
            switch program.found {
            case .executable(let path):
                .ok(.action, program.action, path == program.program ? path : "\(program.program) is \(path)")
            case .notExecutable(let path):
                .wrong(.action, program.action, "\(path) is not executable", fix: "chmod +x \(path)")
            case .missing where program.program.contains("/"):
                .wrong(.action, program.action, "\(program.program) does not exist", fix: "install it, or correct `run`")
            case .missing:
                .wrong(.action, program.action, "\(program.program) is not found in PATH", fix: "install it, or give `run` its full path")
            }
        }
    }

    func http(_ http: HTTPFacts) -> Finding {
        if case .success = http.connected { return .ok(.http, "listening at \(http.address)") }
        guard case .failure(let failure) = http.connected else { return .unknown(.http, "not asked") }
        let nothing = "nothing listens at \(http.address) (\(failure.reason))"
        switch facts.daemon {
        case .absent, .silent:
            return .wrong(.http, nothing + ": the daemon is not running", fix: startDaemon)
        case .answered(let status) where status.http == nil:
            return .wrong(
                .http, nothing + ": the daemon runs without it (`http` was set after it started)", fix: "systemctl --user restart volume-guard")
        case .answered:
            return .wrong(.http, nothing, fix: "a firewall or another program may hold the port: `ss -ltnp` lists who listens where")
        }
    }
}
