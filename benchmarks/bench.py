#!/usr/bin/env python3
"""The benchmark: volume-guard against the audio server's floor and a pulsectl-asyncio baseline.

Run through scripts/bench, which builds everything this needs. For each server kind (PulseAudio, then
PipeWire), on a private server started by scripts/audio-server:

  floor         a client's volume set seen as a change event by another client;
  volume-guard  the release build, `volume-guard run --socket ...`;
  baseline      benchmarks/baseline_guard.py.

Each guard gets: press and restore latency, CPU per press by thread, idle wakeups, anonymous memory at
rest and with 1,000 subscribers, and the fidelity of its counts under five client patterns, each on a
fresh guard. The measuring client is benchmarks/probe.c (vgprobe: C, one thread, libpulse's pa_mainloop);
this script starts and stops things, makes the other patterns' steps, counts presses on a subscriber of
its own, reads /proc and computes the figures. Every wait is bounded; every server and guard it starts is
stopped on the way out, whatever happened. docs/PERFORMANCE.md says what each figure means.

This file is the command line (main); the parts are modules beside it: runner.py (Bench: the servers,
guards and measurements), subscriber.py (the counting subscriber), procfs.py (CPU, threads and memory
from /proc), cleanup.py (what was started, and its stopping), report.py (results.md) and common.py
(the constants, log and Failure they share).
"""
import argparse
import datetime
import json
import os
import resource
import signal
import sys
import time

from common import REPO, Failure, log
from procfs import loadavg
from report import machine, render
from runner import Bench


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", metavar="RESULTS_JSON", help="only print the tables of an earlier run")
    parser.add_argument("--bin", help="the volume-guard executable")
    parser.add_argument("--probe", help="the vgprobe executable")
    parser.add_argument("--out", help="directory for results and logs")
    parser.add_argument("--state", help="directory for the cleanup records")
    parser.add_argument("--quick", action="store_true", help="a smoke run with small sample counts")
    parser.add_argument("--servers", default="pulseaudio,pipewire")
    args = parser.parse_args()
    if args.report:
        with open(args.report) as f:
            sys.stdout.write(render(json.load(f)))
        return 0
    if not (args.bin and args.probe and args.out and args.state):
        parser.error("--bin, --probe, --out and --state are needed for a run")
    kinds = [k for k in args.servers.split(",") if k]
    if any(k not in ("pulseaudio", "pipewire") for k in kinds) or not kinds:
        parser.error("--servers takes pulseaudio and/or pipewire")
    os.makedirs(args.out, exist_ok=True)
    # A thousand subscribers need more descriptors than the usual soft limit (1024), in the probe that
    # holds them and in the baseline guard that serves them; both inherit this.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    def terminate(signum, _frame):
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGHUP, terminate)

    bench = Bench(args)
    started = time.monotonic()
    report = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "quick": args.quick, "sizes": bench.sizes, "machine": machine(), "load_before": loadavg()}
    results = {}
    try:
        for kind in kinds:
            results[kind] = bench.run_server(kind)
    except Failure as error:
        log(f"failed: {error}")
        return 1
    finally:
        bench.cleanup.all()
    report["load_after"] = loadavg()
    report["seconds"] = round(time.monotonic() - started, 1)
    report["results"] = results
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(report, f, indent=1)
    text = render(report)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    log(f"results in {os.path.relpath(args.out, REPO)}/results.{{md,json}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
