#ifndef USER_SPAWN_H
#define USER_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

/// Starts `path` with `argv` and `envp` as another user: a child that takes `groups` (`count` of them),
/// `gid` and `uid` (real, effective and saved) before it execs, its standard input `input`, its standard
/// output and error `output`, `answer` as its descriptor `answer_target` (none when that is -1), and no
/// other descriptor of this process. Returns the child's pid, or -1 with errno set: why the fork, the
/// change of user or the exec failed.
///
/// posix_spawn cannot change the user, and between fork and exec only async-signal-safe calls may run
/// in a child of a threaded process: system calls alone, made here.
pid_t user_spawn(const char *path, char *const argv[], char *const envp[], int input, int output, int answer, int answer_target,
                 uid_t uid, gid_t gid, const gid_t *groups, size_t count);

#endif
