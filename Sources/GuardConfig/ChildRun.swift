import CUserSpawn
import Glibc
import SystemPackage

/// One run of a child: `input` written to its standard input, its standard output and error read
/// together, its end; killed past its deadline. The config file's parser runs in one
/// (`ConfigFile.parseInChild`), `doctor` asks systemctl and gsettings in one, each bounded, and `learn`
/// under sudo reads and writes the user's files in one run as the user.
package struct ChildRun {
    /// Whom a child runs as, when not as this process: a user's ids and every group of theirs.
    package struct User: Sendable {
        package var uid: uid_t
        package var gid: gid_t
        package var groups: [gid_t]

        package init(uid: uid_t, gid: gid_t, groups: [gid_t]) {
            self.uid = uid
            self.gid = gid
            self.groups = groups
        }
    }

    package enum End: Equatable, Sendable {
        case exited(Int32)
        case signaled(Int32)
        case timedOut
    }

    package private(set) var output: [UInt8] = []
    package private(set) var end = End.exited(0)

    /// Runs `executable` (a path: no search of PATH) with `arguments`, which begin with the program's name
    /// (`argv[0]`), and `environment` (`NAME=value`), as `user` when given, until it ends or `deadline` has
    /// passed.
    package init(
        executable: String, arguments: [String], input: [UInt8] = [], environment: [String], as user: User? = nil, deadline: Duration
    ) throws(Errno) {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard Self.pipe(&toChild) else { throw Errno(rawValue: errno) }
        guard Self.pipe(&fromChild) else {
            close(toChild[0])
            close(toChild[1])
            throw Errno(rawValue: errno)
        }
        var pid: pid_t = 0
        let spawned = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in
                Self.spawn(&pid, executable, argv, envp, input: toChild[0], output: fromChild[1], as: user)
            }
        }
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw Errno(rawValue: spawned)
        }
        // The child reads all of its input before it writes: write it all, then read.
        input.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = write(toChild[1], bytes.baseAddress! + sent, bytes.count - sent)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                sent += count
            }
        }
        close(toChild[1])
        let deadline = ContinuousClock.now + deadline
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        reading: while true {
            let left = ContinuousClock.now.duration(to: deadline)
            var entry = pollfd(fd: fromChild[0], events: Int16(POLLIN), revents: 0)
            let ready = left > .zero ? poll(&entry, 1, Int32(clamping: left.components.seconds * 1000 + 1)) : 0
            if ready == 0 {
                kill(pid, SIGKILL)
                end = .timedOut
                break
            }
            if ready < 0 { if errno == EINTR { continue } else { break } }
            let count = chunk.withUnsafeMutableBytes { read(fromChild[0], $0.baseAddress, $0.count) }
            switch count {
            case ..<0 where errno == EINTR: continue
            case ...0: break reading
            default: output += chunk[..<count]
            }
        }
        close(fromChild[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard end != .timedOut else { return }
        // WIFEXITED and friends are macros: the low seven bits are the signal, 0 for an exit.
        end = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
    }
}

extension ChildRun {
    /// Starts the child with `input` as its standard input and `output` as its standard output and error:
    /// posix_spawn, or, to run it as `user`, `user_spawn`'s fork, change of user and exec. Returns 0 or
    /// an errno.
    fileprivate static func spawn(
        _ pid: inout pid_t, _ executable: String, _ argv: [UnsafeMutablePointer<CChar>?], _ envp: [UnsafeMutablePointer<CChar>?],
        input: Int32, output: Int32, as user: User?
    ) -> Int32 {
        if let user {
            pid = user.groups.withUnsafeBufferPointer { groups in
                user_spawn(executable, argv, envp, input, output, output, user.uid, user.gid, groups.baseAddress, groups.count)
            }
            return pid < 0 ? errno : 0
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        return posix_spawn(&pid, executable, &actions, nil, argv, envp)
    }

    /// A pipe whose ends are closed on exec: the child gets only what the spawn's file actions give it.
    fileprivate static func pipe(_ ends: inout [Int32]) -> Bool {
        guard Glibc.pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }
}

/// `strings` as a NULL-terminated C array, for the duration of `body`: an argv or envp for posix_spawn.
package func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}
