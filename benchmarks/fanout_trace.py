#!/usr/bin/env python3
"""Where a press's time goes on its way to many subscribers: the scheduler's view of one fan-out run.

    benchmarks/fanout_trace.py --bin .build/release/volume-guard [--subscribers 200] [--samples 20] [--runs 4]

For each run: a private PulseAudio (scripts/audio-server), `volume-guard run`, and `vgprobe fanout` (the
measuring client of scripts/bench, built into .build-bench/vgprobe) with SUBSCRIBERS subscribers, recorded
by `perf record` with the scheduler's tracepoints (sched_switch, sched_wakeup) on every CPU, against
CLOCK_MONOTONIC, the probe's clock. For each set, from the probe's t0 (just before the set), it reports
when the daemon's libpulse thread was first woken by the server (the change event), when that thread woke
the event loop's thread (the press handed over), when the event loop's thread got a CPU, when it went to
sleep again (every line written), and when the last subscriber had the line; the slowest sets first,
then the median ones. Needs root (or perf_event_paranoid -1) and perf (Debian's linux-perf). Figures for
finding a cause, not asserts: docs/PERFORMANCE.md, "Fan-out: where a slow press's time goes".
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

from common import HELD, REPO, STEP
from runner import Bench


def run_once(bench, subscribers, samples, directory):
    """One run on a fresh server and guard (started and stopped as scripts/bench does): the probe's result
    and the scheduler's events, as `perf script` prints them."""
    bench.start_server(bench.kind)
    try:
        socket_path = os.path.join(bench.env["XDG_RUNTIME_DIR"], "fanout-trace.sock")
        bench.start_guard("volume-guard", socket_path, "trace")
        data = os.path.join(directory, "perf.data")
        result = subprocess.run(["perf", "record", "-q", "-a", "-k", "CLOCK_MONOTONIC", "-e", "sched:sched_switch",
                                 "-e", "sched:sched_wakeup", "-o", data, "--", bench.args.probe, "fanout", "--socket",
                                 socket_path, "--subscribers", str(subscribers), "--samples", str(samples), "--held",
                                 str(HELD), "--step", str(STEP), "--limit-s", "60"], env=bench.env, check=True, text=True,
                                capture_output=True).stdout
        script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,tid,time,event,trace"], check=True,
                                text=True, capture_output=True).stdout
        return json.loads(result), script
    finally:
        bench.cleanup.all()


def events(script):
    """(time in µs, kind, the task it is about, the task that did it or the state it left in)."""
    found = []
    for line in script.splitlines():
        match = re.match(r"\s*(.+?)\s+\d+\s+([\d.]+):\s+(\S+):\s*(.*)", line)
        if not match:
            continue
        comm, time, event, rest = match.groups()
        time = float(time) * 1e6
        if event == "sched:sched_wakeup":
            woken = re.search(r"comm=(.*?) pid=", rest)
            found.append((time, "wake", woken.group(1), comm.strip()))
        elif event == "sched:sched_switch":
            switch = re.search(r"prev_comm=(.*?) prev_pid=\d+ .*prev_state=(\S+) ==> next_comm=(.*?) next_pid=", rest)
            found.append((time, "out", switch.group(1), switch.group(2)))
            found.append((time, "in", switch.group(3), ""))
    return found


def phases(result, trace, run):
    """One row a set: its last subscriber's time and the moments above, in µs after the set."""
    rows = []
    for index, t0 in enumerate(result["t0_us"]):
        last = result["last_us"][index]
        window = [e for e in trace if t0 <= e[0] <= t0 + last + 2000]

        def first(test, after=None):
            return next((e[0] - t0 for e in window if (after is None or e[0] - t0 >= after) and test(e)), None)

        woken = first(lambda e: e[1] == "wake" and e[2] == "libpulse" and e[3] == "pulseaudio")
        handed = first(lambda e: e[1] == "wake" and e[2].startswith("NIO") and e[3] == "libpulse", woken)
        running = handed is not None and first(lambda e: e[1] == "in" and e[2].startswith("NIO"), handed)
        written = handed is not None and first(lambda e: e[1] == "out" and e[2].startswith("NIO") and e[3].startswith("S"),
                                               running)
        rows.append({"run": run, "set": index, "last": last, "event": result["event_us"][index], "libpulse woken": woken,
                     "handed over": handed, "loop running": running or None, "written": written or None})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the volume-guard executable")
    parser.add_argument("--probe", default=os.path.join(REPO, ".build-bench/vgprobe"))
    parser.add_argument("--subscribers", type=int, default=200)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    if not os.access(args.probe, os.X_OK):
        os.makedirs(os.path.dirname(args.probe), exist_ok=True)
        subprocess.run(f"cc -O2 -o {args.probe} {REPO}/benchmarks/probe.c $(pkg-config --cflags --libs libpulse) -lm",
                       shell=True, check=True)
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        bench = Bench(argparse.Namespace(quick=True, state=directory, out=directory, bin=os.path.abspath(args.bin),
                                         probe=args.probe))
        bench.kind = "pulseaudio"
        for run in range(1, args.runs + 1):
            result, script = run_once(bench, args.subscribers, args.samples, directory)
            rows += phases(result, events(script), run)
    columns = ["last", "event", "libpulse woken", "handed over", "loop running", "written"]
    print("µs after the set: the last subscriber's line, the observer's change event, the daemon's libpulse thread")
    print("woken by the server, the press handed to the event loop's thread, that thread on a CPU, every line written")
    print("run.set " + "".join(f"{c:>16}" for c in columns))
    ordered = sorted(rows, key=lambda row: -row["last"])
    middle = len(ordered) // 2
    for row in ordered[:8] + [None] + ordered[middle - 2:middle + 2]:
        if row is None:
            print("... the median sets:")
            continue
        cells = "".join(f"{'-' if row[c] is None else round(row[c]):>16}" for c in columns)
        print(f"{row['run']:>3}.{row['set']:<3}{cells}")
    whole = [row for row in rows if None not in (row["libpulse woken"], row["handed over"], row["loop running"], row["written"])]
    if whole:
        print("medians (µs): event to the daemon {:.0f}; its libpulse thread until the hand-over {:.0f}; the loop thread's "
              "wait for a CPU {:.0f}; its writes {:.0f}; then to the last subscriber {:.0f}".format(
                  statistics.median(r["libpulse woken"] for r in whole),
                  statistics.median(r["handed over"] - r["libpulse woken"] for r in whole),
                  statistics.median(r["loop running"] - r["handed over"] for r in whole),
                  statistics.median(r["written"] - r["loop running"] for r in whole),
                  statistics.median(r["last"] - r["written"] for r in whole)))


if __name__ == "__main__":
    sys.exit(main())
