import Glibc
import GuardConfig

/// Runs a program of the system (udevadm, systemctl, runuser) and waits for it: what the setup's
/// commands need, with the child's output the user's to see.
enum Spawn {
    /// The exit status of `arguments` (its program by path, or found on PATH), or -1 when it could not
    /// start. `quiet` sends its output to /dev/null.
    static func run(_ arguments: [String], quiet: Bool = false) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if quiet {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var pid: pid_t = 0
        let spawned = withCStrings(arguments) { argv in posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ) }
        guard spawned == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        // WIFEXITED and WEXITSTATUS are macros: the low 7 bits are 0 for an exit, the next 8 its status.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
    }
}
