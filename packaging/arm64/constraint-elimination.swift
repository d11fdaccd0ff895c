// Swift 6.2.3's optimizer (Debian's swiftlang, the compiler of the arm64 build) miscompiles this loop, for
// aarch64 and x86_64 alike, at -O and -Osize: LLVM's ConstraintElimination pass folds `count < 0` to
// false, so the failed call's -1 is zero-extended into 4,294,967,295 events and the loop runs past the
// array ("Index out of range": brk on aarch64, SIGTRAP; ud2 on x86_64, SIGILL). Swift 6.3.1 keeps the
// check, and so does 6.2.3 with -Xllvm -enable-constraint-elimination=false. The shape is swift-subprocess
// 1.0.2's epoll loop (AsyncIO+Linux.swift), the thread that waits on the actions' commands, whose
// epoll_wait fails with EINTR once the daemon is stopped (SIGSTOP) and continued: issue #37.
//
// scripts/arm64-build compiles and runs it under qemu-user once per toolchain, to show that the build's
// workaround still holds (it prints 1), and whether the toolchain still needs it.
import Glibc

@inline(never) func ready(_ fds: inout [pollfd]) -> Int32 {
    var attempt = 0
    while true {
        // Fails once (EINVAL: more descriptors than a process may have), as epoll_wait fails with EINTR.
        let count = poll(&fds, attempt == 0 ? nfds_t(Int32.max) : nfds_t(fds.count), 0)
        attempt += 1
        if count < 0 { continue }
        for index in 0..<Int(count) where fds[index].revents != 0 { return fds[index].fd }
    }
}

var fds = [pollfd(fd: 1, events: Int16(POLLOUT), revents: 0)]
print(ready(&fds))
