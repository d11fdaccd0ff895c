#if canImport(Glibc)
import Glibc
#endif

/// Which listening socket systemd handed this process, if any (socket activation, as sd_listen_fds(3)
/// reads it, without libsystemd).
///
/// systemd passes the sockets of a `.socket` unit as descriptors 3, 4, ... and says so in two variables:
/// `LISTEN_FDS`, how many, and `LISTEN_PID`, the process they are for. A process that only inherited
/// the variables from an activated parent finds another pid there and must not touch the descriptors.
/// This is the reading alone, on values passed in; `InheritedSocket` takes the descriptor.
enum SocketActivation {
    /// The first descriptor systemd passes (SD_LISTEN_FDS_START): the one after standard error.
    static let firstDescriptor: CInt = 3

    /// The variables of the protocol, which the daemon removes once read (`removeVariables()`).
    static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    enum Problem: Error, Equatable, CustomStringConvertible {
        /// A variable that is not a number: the environment is broken, and guessing could take a
        /// descriptor that is not a socket.
        case malformed(variable: String, value: String)
        /// More than one socket: the daemon serves one, and would not know which.
        case sockets(Int)

        var description: String {
            switch self {
            case .malformed(let variable, let value):
                "socket activation: \(variable)=\(value) is not a number"
            case .sockets(let count):
                "socket activation: systemd passed \(count) sockets; volume-guard serves exactly one (one ListenStream= in its .socket unit)"
            }
        }
    }

    /// The descriptor passed to the process `processID`, according to `environment`; nil when none was
    /// passed to it: no `LISTEN_PID` or `LISTEN_FDS`, another process's pid, or no socket at all.
    static func descriptor(environment: [String: String], processID: pid_t) throws(Problem) -> CInt? {
        guard let pid = environment["LISTEN_PID"] else { return nil }
        guard let listener = pid_t(pid), listener > 0 else { throw .malformed(variable: "LISTEN_PID", value: pid) }
        guard listener == processID, let fds = environment["LISTEN_FDS"] else { return nil }
        guard let count = Int(fds), count >= 0 else { throw .malformed(variable: "LISTEN_FDS", value: fds) }
        switch count {
        case 0: return nil
        case 1: return firstDescriptor
        default: throw .sockets(count)
        }
    }

    /// Removes the variables from the process's environment, whatever they said, so that the commands of
    /// actions do not see them: they name this process's pid and descriptors, not the command's.
    static func removeVariables() {
        for variable in variables { unsetenv(variable) }
    }
}
