import Glibc
import SystemPackage

/// One run of a child: `input` written to its standard input, its standard output and error read
/// together, its end; killed past its deadline. The config file's parser runs in one
/// (`ConfigFile.parseInChild`), and `doctor` asks systemctl and gsettings in one, each bounded.
package struct ChildRun {
    package enum End: Equatable, Sendable {
        case exited(Int32)
        case signaled(Int32)
        case timedOut
    }

    package private(set) var output: [UInt8] = []
    package private(set) var end = End.exited(0)

    /// Runs `executable` (a path: no search of PATH) with `arguments`, which begin with the program's name
    /// (`argv[0]`), and `environment` (`NAME=value`), until it ends or `deadline` has passed.
    package init(executable: String, arguments: [String], input: [UInt8] = [], environment: [String], deadline: Duration) throws(Errno) {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard Self.pipe(&toChild) else { throw Errno(rawValue: errno) }
        guard Self.pipe(&fromChild) else {
            close(toChild[0])
            close(toChild[1])
            throw Errno(rawValue: errno)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 2)
        var pid: pid_t = 0
        let spawned = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in posix_spawn(&pid, executable, &actions, nil, argv, envp) }
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
