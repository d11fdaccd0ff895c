#define _GNU_SOURCE
#include "user_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/// The child: only system calls (raw ones for the credentials, which glibc's wrappers would broadcast to
/// threads the child does not have), and its failure's errno written to `report` before it exits.
static void become_and_exec(const char *path, char *const argv[], char *const envp[], int input, int output, int answer,
                            int answer_target, uid_t uid, gid_t gid, const gid_t *groups, size_t count, int report) {
    int code = 0;
    if (dup2(input, 0) < 0 || dup2(output, 1) < 0 || dup2(output, 2) < 0 || (answer_target >= 0 && dup2(answer, answer_target) < 0)) {
        code = errno;
    } else if (syscall(SYS_setgroups, count, groups) != 0 || syscall(SYS_setresgid, gid, gid, gid) != 0 ||
               syscall(SYS_setresuid, uid, uid, uid) != 0) {
        code = errno;
    } else if (getuid() != uid || geteuid() != uid || getgid() != gid || getegid() != gid) {
        code = EPERM;
    } else {
        // Every descriptor past the three closed at exec, `report` too (whose end then says the exec
        // worked): none of root's open files reaches the user's process. Older kernels have no
        // close_range; this process opens its own descriptors close-on-exec.
        (void)syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
        if (answer_target >= 0) (void)fcntl(answer_target, F_SETFD, 0);
        execve(path, argv, envp);
        code = errno;
    }
    while (write(report, &code, sizeof code) < 0 && errno == EINTR) {
    }
    _exit(127);
}

pid_t user_spawn(const char *path, char *const argv[], char *const envp[], int input, int output, int answer, int answer_target,
                 uid_t uid, gid_t gid, const gid_t *groups, size_t count) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) become_and_exec(path, argv, envp, input, output, answer, answer_target, uid, gid, groups, count, report[1]);
    int saved = errno;
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        errno = saved;
        return -1;
    }
    int code = 0;
    ssize_t got;
    while ((got = read(report[0], &code, sizeof code)) < 0 && errno == EINTR) {
    }
    close(report[0]);
    if (got == (ssize_t)sizeof code) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        }
        errno = code;
        return -1;
    }
    return pid;
}
