#ifndef SPAWN_SESSION_H
#define SPAWN_SESSION_H

#include <sys/types.h>

/// Starts `program` (looked up in PATH unless it holds a slash) with `argv` and `envp` in a session of its
/// own, its standard input /dev/null, its output and errors the descriptors `output` and `errors`, every
/// other descriptor closed and every signal at its default, unblocked. Returns 0 with the child's pid in
/// `pid`, or an errno value. POSIX_SPAWN_SETSID and posix_spawn_file_actions_addclosefrom_np are glibc's
/// (2.26, 2.34), declared under _GNU_SOURCE only, which Swift does not import.
int volume_guard_spawn_in_session(
    pid_t *pid, const char *program, char *const argv[], char *const envp[], int output, int errors);

/// A pipe whose ends are closed on exec from the start (pipe2's O_CLOEXEC, glibc's too): a child that
/// another thread spawns meanwhile gets neither end, which would keep the pipe from ending.
int volume_guard_pipe(int ends[2]);

#endif
