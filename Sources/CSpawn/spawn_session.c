#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include "spawn_session.h"

int volume_guard_spawn_in_session(
    pid_t *pid, const char *program, char *const argv[], char *const envp[], int output, int errors) {
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_t actions;
    int result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        return result;
    }
    result = posix_spawn_file_actions_init(&actions);
    if (result != 0) {
        posix_spawnattr_destroy(&attributes);
        return result;
    }
    // The daemon ignores or traps signals (SIGPIPE, SIGHUP, SIGTERM, SIGINT) and a command would keep
    // that ignorance: a timeout's SIGTERM would not stop it. SIGKILL and SIGSTOP have no disposition to
    // reset, and sigaction refuses them.
    sigset_t all;
    sigset_t none;
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    sigemptyset(&none);
    result = posix_spawnattr_setsigdefault(&attributes, &all);
    if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &none);
    if (result == 0) {
        result = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    }
    if (result == 0) result = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, output, 1);
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, errors, 2);
    // An input device the daemon holds open, or its sockets, must not outlive it in a command it started.
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (result == 0) result = posix_spawnp(pid, program, &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return result;
}

int volume_guard_pipe(int ends[2]) {
    return pipe2(ends, O_CLOEXEC);
}
