import CSpawn
import Glibc
import GuardSettings
import NIOConcurrencyHelpers
import SystemPackage

/// An action's command, started in a session of its own with its output and errors on pipes, and waited
/// for by a thread that sleeps in waitid(2) until it ends.
///
/// Nothing polls while it runs, and nothing is left behind once it has ended: the thread ends with the
/// wait, and no job ever reaches libdispatch's worker pool, whose monitor, once started, would wake the
/// daemon every second for good (docs/DESIGN.md, "Threads").
final class ChildProcess: Sendable {
    let pid: pid_t
    /// The read ends of its standard output and error: the reader owns them.
    let output: Int32
    let errors: Int32
    /// Whether it was reaped: from then on its pid may be another process's, and no signal is sent.
    private let reaped = NIOLockedValueBox(false)

    /// Starts `command`, its first element a program looked up in PATH unless it holds a slash, with
    /// `environment`.
    init(_ command: [String], environment: [String: String]) throws(Errno) {
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard volume_guard_pipe(&output) == 0 else { throw Errno(rawValue: errno) }
        guard volume_guard_pipe(&errors) == 0 else {
            let failure = errno
            for end in output { close(end) }
            throw Errno(rawValue: failure)
        }
        var pid: pid_t = 0
        let spawned = withCStrings(command) { argv in
            withCStrings(environment.map { "\($0.key)=\($0.value)" }) { envp in
                volume_guard_spawn_in_session(&pid, command[0], argv, envp, output[1], errors[1])
            }
        }
        close(output[1])
        close(errors[1])
        guard spawned == 0 else {
            close(output[0])
            close(errors[0])
            throw Errno(rawValue: spawned)
        }
        self.pid = pid
        self.output = output[0]
        self.errors = errors[0]
    }

    /// Sends `signal` to its process group, everything it started that stayed in its session; nothing
    /// once it has been reaped.
    func signalGroup(_ signal: Int32) {
        reaped.withLockedValue { reaped in
            if !reaped { kill(-pid, signal) }
        }
    }

    /// Waits until it has ended, and reaps it.
    func end() async -> ActionRunner.StateMachine.Outcome {
        await withCheckedContinuation { continuation in
            detach { [self] in
                // WNOWAIT leaves it a zombie, its pid still its own, until the reap below, under the lock
                // that signalGroup takes.
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
                var status: Int32 = 0
                reaped.withLockedValue { reaped in
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                    reaped = true
                }
                // WIFEXITED and friends are macros: the low seven bits are the signal, 0 for an exit.
                continuation.resume(returning: status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f))
            }
        }
    }

    /// Runs `body`, a wait for the child, on a thread of its own, which ends with it.
    private func detach(_ body: @escaping @Sendable () -> Void) {
        final class Body {
            let run: @Sendable () -> Void
            init(_ run: @escaping @Sendable () -> Void) { self.run = run }
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { box in
                Unmanaged<Body>.fromOpaque(box!).takeRetainedValue().run()
                return nil
            }, box)
        guard created == 0 else {
            // No thread to be had (EAGAIN, the process's limit): the wait would hold up the caller's thread for
            // as long as the command runs, so the command is ended first and the wait is short.
            signalGroup(SIGKILL)
            Unmanaged<Body>.fromOpaque(box).takeRetainedValue().run()
            return
        }
        pthread_detach(thread)
    }
}
