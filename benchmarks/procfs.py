"""Measurements read from the kernel: a process's CPU clock, per-thread CPU time and context switches,
memory, the processes of a session and the load average."""
import os
import time


def proc_cpu_ns(pid):
    """The process's CPU time in ns, exited threads included (its CPU-time clock, CPUCLOCK_SCHED)."""
    return time.clock_gettime_ns(((~pid) << 3) | 2)


def session_pids(sid):
    """The processes of session `sid` (an audio server started by scripts/audio-server is one)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[3]) == sid:   # field 6 of stat: the session id
                    pids.append(int(entry))
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                pass
    return pids


def cpu_ns_of(pids):
    total = 0
    for pid in pids:
        try:
            total += proc_cpu_ns(pid)
        except OSError:
            pass
    return total


def status_fields(path):
    """The `Key: value` lines of a /proc status file, values as the first number (kB for memory)."""
    fields = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.partition(":")
            if value.split() and value.split()[0].isdigit():
                fields[key] = int(value.split()[0])
    return fields


def threads(pid):
    """Per thread id: its name (comm), ns on CPU (schedstat's first field) and context switches."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        base = f"/proc/{pid}/task/{tid}"
        try:
            with open(f"{base}/comm") as f:
                comm = f.read().strip()
            with open(f"{base}/schedstat") as f:
                cpu_ns = int(f.read().split()[0])
            status = status_fields(f"{base}/status")
        except (FileNotFoundError, ProcessLookupError, ValueError, IndexError):
            continue   # it ended between the listing and the reads
        out[tid] = (comm, cpu_ns, status["voluntary_ctxt_switches"] + status["nonvoluntary_ctxt_switches"])
    return out


def thread_kind(comm):
    """What a thread is, from its name (comm keeps the last 15 bytes of libdispatch's queue names)."""
    if comm.startswith("NIO-"):
        return "NIO event loop"
    if comm == "libpulse":
        return "libpulse mainloop"
    if "qos" in comm:
        return "libdispatch workers"
    return comm


def thread_deltas(before, after, field):
    """The growth of a per-thread field (1: CPU ns, 2: context switches) by thread kind, over threads alive
    at the end (a thread started in between counts from 0)."""
    by_kind = {}
    for tid, values in after.items():
        kind = thread_kind(values[0])
        grown = values[field] - (before[tid][field] if tid in before else 0)
        by_kind[kind] = by_kind.get(kind, 0) + grown
    return by_kind


def memory(pid):
    status = status_fields(f"/proc/{pid}/status")
    return {key: status.get(key) for key in ("RssAnon", "RssFile", "VmRSS", "VmHWM", "Threads")}


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])
