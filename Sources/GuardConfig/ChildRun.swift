import CUserSpawn
import Glibc
import GuardSettings
import SystemPackage

/// One run of a child: `input` written to its standard input, its standard output and error read
/// together, its answer (when it has a channel for one) read apart, its end; killed past its deadline.
/// The config file's parser runs in one (`ConfigFile.parseInChild`), `doctor` asks systemctl and
/// gsettings in one, each bounded, and `learn` under sudo reads and writes the user's files in one run as
/// the user.
///
/// Everything is bounded by the one deadline: writing the input as much as reading, so that a child that
/// neither reads nor ends cannot hold the parent. The input goes through a socket, written with
/// `MSG_NOSIGNAL`: a child that ends before it has read it all is an error of the write (EPIPE), not a
/// SIGPIPE that would end the parent (the daemon, on a reload).
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

    /// What it wrote on its standard output and error: a program's lines, a loader's warnings, a crash's
    /// last words.
    package private(set) var output: [UInt8] = []
    /// What it wrote on the descriptor `answerDescriptor`, when it was given one.
    package private(set) var answer: [UInt8] = []
    package private(set) var end = End.exited(0)

    /// Runs `executable` (a path: no search of PATH) with `arguments`, which begin with the program's name
    /// (`argv[0]`), and `environment` (`NAME=value`), until it ends or `deadline` has passed. With an
    /// `answerDescriptor`, the child has that descriptor open on a pipe of its own for its answer, which
    /// nothing else it runs (the loader, a library) writes to as they may to standard error. As `user`
    /// when given.
    package init(
        executable: String, arguments: [String], input: [UInt8] = [], environment: [String], as user: User? = nil, deadline: Duration,
        answerDescriptor: Int32? = nil
    ) throws(Errno) {
        let deadline = ContinuousClock.now + deadline
        var channels = try Channels(answer: answerDescriptor != nil)
        defer { channels.closeAll() }
        var pid: pid_t = 0
        let spawned = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in
                Self.spawn(&pid, executable, argv, envp, channels, answerDescriptor: answerDescriptor ?? -1, as: user)
            }
        }
        channels.closeChildEnds()
        guard spawned == 0 else { throw Errno(rawValue: spawned) }
        if !channels.exchange(input, until: deadline, output: &output, answer: &answer) {
            kill(pid, SIGKILL)
            end = .timedOut
        }
        channels.closeAll()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard end != .timedOut else { return }
        // WIFEXITED and friends are macros: the low seven bits are the signal, 0 for an exit.
        end = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
    }
}

extension ChildRun {
    /// Starts the child with `channels`' ends as its standard input, output and error and its answer's
    /// descriptor: posix_spawn, or, to run it as `user`, `user_spawn`'s fork, change of user and exec.
    /// Returns 0 or an errno.
    fileprivate static func spawn(
        _ pid: inout pid_t, _ executable: String, _ argv: [UnsafeMutablePointer<CChar>?], _ envp: [UnsafeMutablePointer<CChar>?],
        _ channels: Channels, answerDescriptor: Int32, as user: User?
    ) -> Int32 {
        if let user {
            pid = user.groups.withUnsafeBufferPointer { groups in
                user_spawn(
                    executable, argv, envp, channels.childInput, channels.childOutput, channels.childAnswer, answerDescriptor, user.uid,
                    user.gid, groups.baseAddress, groups.count)
            }
            return pid < 0 ? errno : 0
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, channels.childInput, 0)
        posix_spawn_file_actions_adddup2(&actions, channels.childOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, channels.childOutput, 2)
        if answerDescriptor >= 0 { posix_spawn_file_actions_adddup2(&actions, channels.childAnswer, answerDescriptor) }
        return posix_spawn(&pid, executable, &actions, nil, argv, envp)
    }
}

/// The parent's ends of a child's input, output and answer (-1 once closed), and the child's until it is
/// spawned; every one closed on exec, so that the child gets only what the spawn's file actions give it.
private struct Channels {
    var input: Int32 = -1
    var output: Int32 = -1
    var answer: Int32 = -1
    var childInput: Int32 = -1
    var childOutput: Int32 = -1
    var childAnswer: Int32 = -1

    init(answer withAnswer: Bool) throws(Errno) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { throw Errno(rawValue: errno) }
        (input, childInput) = (ends[0], ends[1])
        do {
            (output, childOutput) = try Self.pipe()
            if withAnswer { (answer, childAnswer) = try Self.pipe() }
        } catch {
            closeAll()
            throw error
        }
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
    }

    private static func pipe() throws(Errno) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw Errno(rawValue: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    mutating func closeChildEnds() {
        for end in [childInput, childOutput, childAnswer] where end >= 0 { Glibc.close(end) }
        (childInput, childOutput, childAnswer) = (-1, -1, -1)
    }

    mutating func closeAll() {
        closeChildEnds()
        for end in [input, output, answer] where end >= 0 { Glibc.close(end) }
        (input, output, answer) = (-1, -1, -1)
    }

    /// Writes `bytes` to the child's input while reading its output and answer, until it has closed both
    /// (it ended); false when `deadline` came first. A child that stops reading only ends the writing.
    mutating func exchange(
        _ bytes: [UInt8], until deadline: ContinuousClock.Instant, output said: inout [UInt8], answer answered: inout [UInt8]
    )
        -> Bool
    {
        var sent = 0
        while true {
            if input >= 0 && sent == bytes.count { Self.close(&input) }
            guard input >= 0 || output >= 0 || answer >= 0 else { return true }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            var entries = [
                pollfd(fd: input, events: Int16(POLLOUT), revents: 0), pollfd(fd: output, events: Int16(POLLIN), revents: 0),
                pollfd(fd: answer, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, 3, Int32(clamping: left.components.seconds * 1000 + 1))
            if ready < 0 && errno == EINTR { continue }
            // A poll that fails has no way on: the child is killed as if its time were up.
            guard ready >= 0 else { return false }
            if entries[0].revents != 0 {
                let count = bytes.withUnsafeBytes { send(input, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                if count >= 0 {
                    sent += count
                } else if errno != EINTR && errno != EAGAIN {
                    // EPIPE: the child has closed its input, or ended, before it read it all.
                    Self.close(&input)
                }
            }
            if entries[1].revents != 0 { Self.read(&output, into: &said) }
            if entries[2].revents != 0 { Self.read(&answer, into: &answered) }
        }
    }

    /// Reads what `descriptor` has into `bytes`; closes it at its end (or on an error).
    private static func read(_ descriptor: inout Int32, into bytes: inout [UInt8]) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            bytes += chunk[..<count]
        } else if count == 0 || errno != EINTR {
            close(&descriptor)
        }
    }

    private static func close(_ descriptor: inout Int32) {
        Glibc.close(descriptor)
        descriptor = -1
    }
}
