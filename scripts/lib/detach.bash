# Starting a server that outlives the script that starts it (scripts/audio-server sources it).

# Puts back the signals' defaults, unblocked, then execs its arguments: a child of a test process inherits
# SIGTERM blocked, and a server that SIGTERM cannot stop would be killed after 3 s instead.
readonly DEFAULT_SIGNALS='
import os, signal, sys
for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(number, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_SETMASK, [])
os.execvp(sys.argv[1], sys.argv[1:])'

# Runs "$@" detached: its own session, its signals at their defaults (where python3 is), stdin from /dev/null, output to the
# log $1 (shifted off), every other descriptor closed, so that the caller's pipes reach their end when the
# script exits (Foundation's Process waits for that). The subshell is not a group leader, so setsid execs
# in place, and so does python: `detached` is the program's pid, and its process group's id.
detach() {
    local log=$1
    shift
    (
        exec </dev/null >>"$log" 2>&1
        for fd in /proc/$BASHPID/fd/*; do
            fd=${fd##*/}
            if (( fd > 2 )); then eval "exec $fd>&-" || true; fi
        done
        # Without python3 (a bare Debian root, where the package's smoke test runs from no test process)
        # the signals stay as they came.
        if command -v python3 >/dev/null; then exec setsid python3 -c "$DEFAULT_SIGNALS" "$@"; fi
        exec setsid "$@"
    ) &
    detached=$!
}
