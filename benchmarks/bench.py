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
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HELD = 32768       # 50 % of PA_VOLUME_NORM
STEP = 3277        # 5 %

FULL = dict(floor=1000, latency=1000, cpu_presses=500, clients=1000, fanout=50, idle=20.0, steps=200)
QUICK = dict(floor=100, latency=100, cpu_presses=100, clients=1000, fanout=10, idle=3.0, steps=50)

GUARDS = ("volume-guard", "baseline")

# The client patterns of the fidelity table: every step is one key step up.
PATTERNS = {
    "probe": "C probe, back to back: read, set +5 %, wait for the ack, next",
    "pulsectl": "pulsectl (Python), back to back: read the sink, set it +5 %, wait for the ack, next",
    "pactl": "`pactl set-sink-volume SINK +1%`, one process after another",
    "scroll": "C probe, a +5 % step every 8 ms (a 125 Hz scroll wheel)",
    "keys": "C probe, a +5 % step every 20 ms (50 Hz key repeat)",
}


def log(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


class Failure(Exception):
    pass


# ------------------------------------------------------------------ bookkeeping for cleanup

class Cleanup:
    """What is running, in memory and in files under the state directory (scripts/bench's trap reads them
    if this process is killed before its own `finally` runs)."""

    def __init__(self, state_dir):
        self.state_dir = state_dir
        os.makedirs(state_dir, exist_ok=True)
        self.servers = {}    # kind -> env
        self.processes = {}  # name -> Popen

    def add_server(self, kind, env):
        self.servers[kind] = env
        with open(os.path.join(self.state_dir, f"server-{kind}"), "w") as f:
            f.write(f"AUDIO_SERVER_PGID={env['AUDIO_SERVER_PGID']}\nAUDIO_SERVER_DIR={env['AUDIO_SERVER_DIR']}\n")

    def stop_server(self, kind):
        env = self.servers.pop(kind, None)
        if env is None:
            return
        stop_env = dict(os.environ, AUDIO_SERVER_PGID=env["AUDIO_SERVER_PGID"], AUDIO_SERVER_DIR=env["AUDIO_SERVER_DIR"])
        result = subprocess.run([os.path.join(REPO, "scripts/audio-server"), "--stop"], env=stop_env, timeout=30,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if result.returncode:
            log(f"stopping the {kind} server failed: {result.stderr.strip()}")
        try:
            os.unlink(os.path.join(self.state_dir, f"server-{kind}"))
        except FileNotFoundError:
            pass

    def add_process(self, name, process):
        self.processes[name] = process
        with open(os.path.join(self.state_dir, f"pid-{name}"), "w") as f:
            f.write(f"{process.pid}\n")

    def stop_process(self, name, timeout=5.0):
        """SIGTERM, then SIGKILL after `timeout`; returns the exit status (None if it had to be killed)."""
        process = self.processes.pop(name, None)
        if process is None:
            return None
        status = process.poll()
        if status is None:
            process.send_signal(signal.SIGTERM)
            try:
                status = process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                log(f"{name} did not exit within {timeout:.0f} s of SIGTERM; killing it")
                process.kill()
                process.wait(timeout=5)
                status = None
        try:
            os.unlink(os.path.join(self.state_dir, f"pid-{name}"))
        except FileNotFoundError:
            pass
        return status

    def all(self):
        for name in list(self.processes):
            self.stop_process(name)
        for kind in list(self.servers):
            self.stop_server(kind)


# ------------------------------------------------------------------ statistics

def percentile(values, p):
    """Nearest rank."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def summary(values_us):
    if not values_us:
        return None
    return {"n": len(values_us), "p50_ms": percentile(values_us, 50) / 1000, "p99_ms": percentile(values_us, 99) / 1000,
            "max_ms": max(values_us) / 1000}


# ------------------------------------------------------------------ /proc

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


# ------------------------------------------------------------------ a subscriber that counts

class Subscriber:
    """One client subscribed to a guard's presses, reading them on a thread of its own."""

    def __init__(self, socket_path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(5)
        self.sock.connect(socket_path)
        self.sock.sendall(b'{"cmd":"subscribe","gestures":false}\n')
        self.presses = []
        self.subscribed = threading.Event()
        self.last_arrival = time.monotonic()
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()
        if not self.subscribed.wait(5):
            self.close()
            raise Failure("a subscriber was not answered `subscribed` within 5 s")

    def read(self):
        self.sock.settimeout(None)
        data = b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            data += chunk
            *lines, data = data.split(b"\n")
            for line in lines:
                message = json.loads(line)
                if message.get("type") == "subscribed":
                    self.subscribed.set()
                elif message.get("type") == "press":
                    self.presses.append(message)
                    self.last_arrival = time.monotonic()

    def settle(self, quiet=1.0, limit=10.0):
        """Waits until no press has come for `quiet` seconds (at most `limit`)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and time.monotonic() - self.last_arrival < quiet:
            time.sleep(0.05)

    def close(self):
        self.sock.shutdown(socket.SHUT_RDWR)   # wakes the reader's recv(), which close() alone does not
        self.reader.join(5)
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def tally(presses):
    """Key steps reported, by direction, and gaps in the sequence numbers (lines a slow reader lost)."""
    steps = {"up": 0, "down": 0, "mute": 0}
    for press in presses:
        steps[press["direction"]] += press.get("count", 1)
    gaps = sum(1 for a, b in zip(presses, presses[1:]) if b["seq"] != a["seq"] + 1)
    return steps, gaps


# ------------------------------------------------------------------ the pieces

class Bench:
    def __init__(self, args):
        self.args = args
        self.sizes = QUICK if args.quick else FULL
        self.cleanup = Cleanup(args.state)
        self.env = None
        self.logs = args.out

    def run_probe(self, mode, *extra, socket_path=None, timeout=300, while_connected=None):
        """Runs vgprobe and returns its JSON result. With `while_connected`, the probe keeps its subscribers
        connected after its result (--linger) until that function has run; its result is added."""
        command = [self.args.probe, mode, "--held", str(HELD), "--step", str(STEP), "--limit-s", str(timeout)]
        if socket_path:
            command += ["--socket", socket_path]
        if while_connected:
            command.append("--linger")
        command += [str(x) for x in extra]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        stdin = subprocess.PIPE if while_connected else subprocess.DEVNULL
        process = subprocess.Popen(command, env=self.env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        try:
            first, connected = "", None
            if while_connected:
                first = process.stdout.readline()   # bounded by the probe's own --limit-s alarm
                connected = while_connected()
            out, err = process.communicate(timeout=timeout + 10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise Failure(f"vgprobe {mode} did not end within {timeout + 10} s")
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        for line in err.splitlines():
            log(f"  probe {mode}: {line}")
        if process.returncode:
            raise Failure(f"vgprobe {mode} exited {process.returncode}")
        data = json.loads(first or out)
        if connected is not None:
            data["while_connected"] = connected
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        data["probe_cpu_percent"] = round(100 * cpu / wall, 1) if wall > 0 else None
        data["probe_notes"] = err.splitlines()
        return data

    def hold(self):
        """Puts the default sink at the held level (nothing guards it at that moment)."""
        data = self.run_probe("set", timeout=20)
        if abs(data["raw"] - HELD) > 8:
            raise Failure(f"could not set the sink to raw {HELD}: it reads {data['raw']}")

    def start_server(self, kind):
        result = subprocess.run([os.path.join(REPO, "scripts/audio-server"), f"--{kind}"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, timeout=60)
        if result.returncode:
            raise Failure(f"scripts/audio-server --{kind} failed:\n{result.stderr}")
        exported = {}
        for line in result.stdout.splitlines():
            match = re.match(r"^export ([A-Z_]+)=(.*)$", line)
            if match:
                exported[match.group(1)] = match.group(2)
        self.cleanup.add_server(kind, exported)
        self.server_sid = int(exported["AUDIO_SERVER_PGID"])   # setsid: the server's session and group
        self.sink = exported["AUDIO_SERVER_SINKS"].split(",")[0]   # the default sink
        self.env = dict(os.environ, XDG_RUNTIME_DIR=exported["XDG_RUNTIME_DIR"], PULSE_SERVER=exported["PULSE_SERVER"])
        info = subprocess.run(["pactl", "info"], env=self.env, stdout=subprocess.PIPE, text=True, timeout=10).stdout
        name = re.search(r"^Server Name: (.*)$", info, re.M)
        version = re.search(r"^Server Version: (.*)$", info, re.M)
        return exported, f"{name.group(1) if name else '?'} {version.group(1) if version else '?'}"

    def start_guard(self, name, socket_path, label):
        """Starts a guard on the held sink; `label` names its log file."""
        if name == "volume-guard":
            command = [self.args.bin, "run", "--socket", socket_path]
        else:
            command = [sys.executable, os.path.join(REPO, "benchmarks/baseline_guard.py"), "--socket", socket_path]
        self.hold()
        log_path = os.path.join(self.logs, f"{self.kind}-{name}-{label}.log")
        with open(log_path, "w") as log_file:
            process = subprocess.Popen(command, env=self.env, stdin=subprocess.DEVNULL, stdout=log_file,
                                       stderr=log_file)
        self.cleanup.add_process(name, process)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise Failure(f"{name} exited with {process.returncode} during start; see {log_path}")
            if self.ready(socket_path, name == "volume-guard"):
                return process, " ".join(os.path.relpath(c, REPO) if c.startswith(REPO) else c for c in command)
            time.sleep(0.05)
        raise Failure(f"{name} did not get ready within 15 s; see {log_path}")

    @staticmethod
    def request(socket_path, line, timeout=2.0):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(socket_path)
            s.sendall(line.encode() + b"\n")
            data = b""
            while b"\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            return json.loads(data.split(b"\n", 1)[0])

    def ready(self, socket_path, is_volume_guard):
        try:
            if is_volume_guard:
                status = self.request(socket_path, '{"cmd":"status"}')
                return status.get("state") == "guarding" and max(status["held"]["raw"]) == HELD
            return self.request(socket_path, '{"cmd":"subscribe"}').get("type") == "subscribed"
        except (OSError, ValueError, KeyError, TypeError):
            return False

    def cpu_per_press(self, pid, socket_path):
        """CPU of the guard's threads over paced presses (a step every 20 ms, one subscriber), per press."""
        n = self.sizes["cpu_presses"]
        server = session_pids(self.server_sid)
        with Subscriber(socket_path) as subscriber:
            threads0, clock0, server0 = threads(pid), proc_cpu_ns(pid), cpu_ns_of(server)
            steps = self.run_probe("rate", "--steps", n, "--interval-ms", 20)
            subscriber.settle(quiet=0.5)
            threads1, clock1, server1 = threads(pid), proc_cpu_ns(pid), cpu_ns_of(server)
        by_kind = thread_deltas(threads0, threads1, 1)
        # The process clock also has the threads that ended in between, which /proc no longer lists.
        ended = clock1 - clock0 - sum(by_kind.values())
        if ended > 0 and set(threads0) - set(threads1):
            by_kind["threads that ended"] = ended
        reported, gaps = tally(subscriber.presses)
        return {"presses": steps["made"], "reported": reported, "seq_gaps": gaps,
                "total_us": sum(by_kind.values()) / 1000 / n,
                "by_thread_us": {kind: ns / 1000 / n for kind, ns in by_kind.items()},
                "process_clock_us": (clock1 - clock0) / 1000 / n,
                "server_us": (server1 - server0) / 1000 / n,
                "threads": sorted({values[0] for values in threads1.values()})}

    def idle(self, pid, socket_path):
        """Context switches of the guard's threads while nothing happens, one subscriber connected."""
        seconds = self.sizes["idle"]
        with Subscriber(socket_path):
            time.sleep(2.0)   # the last press's work (resets, echoes, lines) is over well before this
            threads0, clock0 = threads(pid), proc_cpu_ns(pid)
            time.sleep(seconds)
            threads1, clock1 = threads(pid), proc_cpu_ns(pid)
        by_kind = thread_deltas(threads0, threads1, 2)
        return {"seconds": seconds, "per_second": sum(by_kind.values()) / seconds,
                "by_thread_per_second": {kind: n / seconds for kind, n in by_kind.items()},
                "cpu_ms": (clock1 - clock0) / 1e6,
                "threads_ended": len(set(threads0) - set(threads1)),
                "threads_started": len(set(threads1) - set(threads0))}

    def measure_guard(self, name, socket_path):
        sizes = self.sizes
        process, command = self.start_guard(name, socket_path, "main")
        result = {"command": command, "memory_start": memory(process.pid)}
        log(f"  {name}: press and restore latency ({sizes['latency']} samples)")
        result["latency"] = self.run_probe("latency", "--samples", sizes["latency"], socket_path=socket_path)
        log(f"  {name}: CPU over {sizes['cpu_presses']} presses 20 ms apart")
        result["cpu"] = self.cpu_per_press(process.pid, socket_path)
        log(f"  {name}: idle wakeups over {sizes['idle']:.0f} s")
        result["idle"] = self.idle(process.pid, socket_path)
        result["memory_rest"] = memory(process.pid)
        log(f"  {name}: {sizes['clients']} subscribers, {sizes['fanout']} presses to all of them")
        result["fanout"] = self.run_probe("fanout", "--subscribers", sizes["clients"], "--samples", sizes["fanout"],
                                          "--timeout-ms", 3000, socket_path=socket_path,
                                          while_connected=lambda: memory(process.pid))
        result["exit_status"] = self.cleanup.stop_process(name)
        return result

    def make_steps(self, pattern, n):
        """Makes `n` of the pattern's steps; returns the stepper's account, with "made": how many steps the
        server acknowledged."""
        if pattern == "probe":
            return self.run_probe("burst", "--steps", n, timeout=120)
        if pattern == "scroll":
            return self.run_probe("rate", "--steps", n, "--interval-ms", 8, timeout=120)
        if pattern == "keys":
            return self.run_probe("rate", "--steps", n, "--interval-ms", 20, timeout=120)
        if pattern == "pulsectl":
            result = subprocess.run([sys.executable, os.path.join(REPO, "benchmarks/pulsectl_stepper.py"),
                                     "--steps", str(n), "--step", "0.05", "--limit-s", "60"],
                                    env=self.env, stdout=subprocess.PIPE, text=True, timeout=90)
            if result.returncode:
                raise Failure(f"pulsectl_stepper.py exited {result.returncode}")
            return json.loads(result.stdout)
        made, deadline = 0, time.monotonic() + 120
        for _ in range(n):
            if time.monotonic() > deadline:
                break
            made += subprocess.run(["pactl", "set-sink-volume", self.sink, "+1%"], env=self.env, timeout=5,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        return {"made": made}

    def fidelity(self, name, socket_path):
        """Each pattern on a fresh guard: steps made against key steps reported."""
        out = {}
        for pattern in PATTERNS:
            self.start_guard(name, socket_path, f"steps-{pattern}")
            # A guard in use has learned the step from the keys: one step alone first, not counted.
            self.make_steps(pattern, 1)
            time.sleep(0.3)
            with Subscriber(socket_path) as subscriber:
                started = time.monotonic()
                stepper = self.make_steps(pattern, self.sizes["steps"])
                seconds = time.monotonic() - started
                subscriber.settle(quiet=0.5)
            reported, gaps = tally(subscriber.presses)
            final = self.run_probe("get", timeout=20)["raw"]
            self.cleanup.stop_process(name)
            made = stepper["made"]
            # Every step was one step up: a press down or a mute is a phantom.
            out[pattern] = {"made": made, "reported": reported, "lost": max(0, made - reported["up"]),
                            "extra": max(0, reported["up"] - made) + reported["down"] + reported["mute"],
                            "lines": len(subscriber.presses), "seq_gaps": gaps, "seconds": seconds,
                            "largest_count": max((p.get("count", 1) for p in subscriber.presses), default=0),
                            "highest_raw": stepper.get("highest_raw"), "final_raw": final}
            log(f"  {name}, {pattern}: made {made}, reported {reported}")
        return out

    def run_server(self, kind):
        self.kind = kind
        log(f"{kind}: starting a private server")
        exported, version = self.start_server(kind)
        out = {"server": version, "load": loadavg()}
        try:
            self.hold()
            log(f"{kind}: floor ({self.sizes['floor']} samples)")
            out["floor"] = self.run_probe("floor", "--samples", self.sizes["floor"])
            for name in GUARDS:
                socket_path = os.path.join(exported["AUDIO_SERVER_DIR"], f"{name}.sock")
                out[name] = self.measure_guard(name, socket_path)
                log(f"  {name}: {self.sizes['steps']} steps in each of {len(PATTERNS)} patterns, each on a fresh guard")
                out[name]["fidelity"] = self.fidelity(name, socket_path)
        finally:
            self.cleanup.stop_server(kind)
        return out


# ------------------------------------------------------------------ the machine

def machine():
    def run(command):
        try:
            return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  timeout=30).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return "?"
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break

    def package_version(name):
        try:
            from importlib.metadata import version
            return version(name)
        except Exception:
            return "?"
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "kernel": platform.release(),
        "os": run(["sh", "-c", ". /etc/os-release && echo $PRETTY_NAME"]),
        "swift": run(["swift", "--version"]).splitlines()[0] if shutil.which("swift") else "?",
        "libpulse": run(["pkg-config", "--modversion", "libpulse"]),
        "pipewire": run(["pipewire", "--version"]).splitlines()[-1],
        "wireplumber": run(["wireplumber", "--version"]).splitlines()[-1],
        "python": platform.python_version(),
        "pulsectl": package_version("pulsectl"),
        "pulsectl-asyncio": package_version("pulsectl-asyncio"),
        "commit": run(["git", "-C", REPO, "describe", "--always", "--dirty"]),
    }


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


# ------------------------------------------------------------------ the report

def mark(ok):
    return " ✓" if ok else " ✗"


def pair(stats):
    return "–" if not stats else f"{stats['p50_ms']:.2f} / {stats['p99_ms']:.2f}"


def mb(kb):
    return f"{kb / 1024:.1f}"


def guard_table(r):
    """One server's figures, volume-guard beside the baseline, with volume-guard against the targets."""
    floor = summary(r["floor"]["event_us"])
    rows = [("the floor: a set's change event at another client (ms, p50 / p99)", "", pair(floor), "")]

    def row(label, target, cell, ok=None):
        rows.append((label, target, cell(r["volume-guard"]) + ("" if ok is None else mark(ok(r["volume-guard"]))),
                     cell(r["baseline"])))

    def press(g):
        return summary(g["latency"]["press_us"])

    row("press: the set → the press line at a subscriber (ms, p50 / p99)", "p50 ≤ floor + 0.3 ms, p99 < 2 ms",
        lambda g: pair(press(g)),
        lambda g: press(g)["p50_ms"] <= floor["p50_ms"] + 0.3 and press(g)["p99_ms"] < 2
        and g["latency"]["missing_press"] == 0)
    row("press − the same set's change event, paired (ms)", "", lambda g: pair(summary(
        [p - e for p, e in zip(g["latency"]["press_us"], g["latency"]["event_us"]) if e >= 0])))
    row("restore: the set → the held level read by another client (ms)", "p99 < 2 ms",
        lambda g: pair(summary(g["latency"]["restore_us"])),
        lambda g: summary(g["latency"]["restore_us"])["p99_ms"] < 2 and g["latency"]["missing_restore"] == 0)
    row("CPU per press, all threads (µs)", "≤ 200 µs (issue 15, eventually)",
        lambda g: f"{g['cpu']['total_us']:.0f}", lambda g: g["cpu"]["total_us"] <= 200)
    row("anonymous memory at rest (MB)", "≤ 4 MB", lambda g: mb(g["memory_rest"]["RssAnon"]),
        lambda g: g["memory_rest"]["RssAnon"] <= 4096)
    row(f"anonymous memory with {r['volume-guard']['fanout']['subscribers']} subscribers (MB)", "≤ 16 MB",
        lambda g: mb(g["fanout"]["while_connected"]["RssAnon"]),
        lambda g: g["fanout"]["while_connected"]["RssAnon"] <= 16384)
    row("RSS at rest / with the subscribers (MB)", "(information)",
        lambda g: f"{mb(g['memory_rest']['VmRSS'])} / {mb(g['fanout']['while_connected']['VmRSS'])}")
    row("idle wakeups per second", "(information)", lambda g: f"{g['idle']['per_second']:.2f}")
    row(f"fan-out: the set → the last of {r['volume-guard']['fanout']['subscribers']} subscribers (ms)",
        "(information)", lambda g: pair(summary(g["fanout"]["last_us"])))
    row("the audio server's CPU per press (µs)", "(information)", lambda g: f"{g['cpu']['server_us']:.0f}")
    lines = ["| figure | target | volume-guard | baseline |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines)


def by_thread_table(results, kinds, key, unit, fmt):
    """volume-guard's figure `key` split by thread kind, one column per server."""
    names = sorted({t for k in kinds for t in results[k]["volume-guard"][key[0]][key[1]]})
    lines = [f"| volume-guard's thread ({unit}) | " + " | ".join(kinds) + " |", "|---|" + "---|" * len(kinds)]
    for name in names:
        lines.append(f"| {name} | " + " | ".join(
            fmt(results[k]["volume-guard"][key[0]][key[1]].get(name, 0)) for k in kinds) + " |")
    return "\n".join(lines)


def fidelity_table(r):
    def cell(f):
        extra = f"**{f['extra']} ⚠**" if f["extra"] else "0"
        return f"{sum(f['reported'].values())} / {f['lost']} / {extra}"
    lines = ["| pattern | made (vg / bl) | volume-guard: reported / lost / extra | its largest count in one press "
             "| baseline: reported / lost / extra |", "|---|---|---|---|---|"]
    for pattern, label in PATTERNS.items():
        vg, bl = r["volume-guard"]["fidelity"][pattern], r["baseline"]["fidelity"][pattern]
        lines.append(f"| {label} | {vg['made']} / {bl['made']} | {cell(vg)} | {vg['largest_count']} | {cell(bl)} |")
    return "\n".join(lines)


def details(results, kinds):
    """The counts behind the figures, and anything odd."""
    out = []
    for kind in kinds:
        r = results[kind]
        floor = r["floor"]
        out.append(f"- {kind} ({r['server']}) floor: {len(floor['event_us'])} samples, missing {floor['missing']}; "
                   f"set acknowledged {pair(summary(floor['ack_us']))} ms; a read's round trip "
                   f"{pair(summary(floor['rtt_us']))} ms")
        for name in GUARDS:
            g = r[name]
            lat, cpu, idle, fan = g["latency"], g["cpu"], g["idle"], g["fanout"]
            out.append(f"- {kind}, {name} (`{g['command']}`): latency {lat['samples']} samples, missing press "
                       f"{lat['missing_press']}, missing restore {lat['missing_restore']}, extra lines "
                       f"{lat['extra_lines']}, recoveries {lat['recoveries']}; CPU run: {cpu['presses']} presses, "
                       f"reported {cpu['reported']}, seq gaps {cpu['seq_gaps']}, process clock "
                       f"{cpu['process_clock_us']:.0f} µs per press, by thread "
                       + ", ".join(f"{k} {v:.0f}" for k, v in sorted(cpu["by_thread_us"].items()))
                       + f" µs, threads {', '.join(cpu['threads'])}; idle {idle['cpu_ms']:.2f} ms of CPU in "
                       f"{idle['seconds']:.0f} s, wakeups/s by thread "
                       + ", ".join(f"{k} {v:.2f}" for k, v in sorted(idle["by_thread_per_second"].items()))
                       + f" ({idle['threads_ended']} threads ended, {idle['threads_started']} started); memory (kB) "
                       f"at start {g['memory_start']}, at rest {g['memory_rest']}, with {fan['subscribers']} "
                       f"subscribers {fan['while_connected']}; fan-out missing {fan['missing_press']}; "
                       f"exit status {g['exit_status']}")
            for pattern, f in g["fidelity"].items():
                highest = f" (highest level read {f['highest_raw'] / 655.36:.0f} %)" if f["highest_raw"] else ""
                final = "held" if abs(f["final_raw"] - HELD) <= 8 else f["final_raw"]
                out.append(f"  - {pattern}: made {f['made']} in {f['seconds']:.2f} s{highest}, reported "
                           f"{f['reported']} in {f['lines']} lines, seq gaps {f['seq_gaps']}, final level {final}")
    return "\n".join(out)


def render(report):
    results = report["results"]
    kinds = list(results)
    m = report["machine"]
    text = [
        f"volume-guard benchmark, {report['date']}{' (quick)' if report['quick'] else ''}, {report['seconds']:.0f} s, "
        f"at {m['commit']}",
        f"machine: {m['nproc']} × {m['cpu']}, kernel {m['kernel']}, {m['os']}, {m['swift']}",
        f"servers: {', '.join(results[k]['server'] for k in kinds)}; libpulse {m['libpulse']}; "
        f"WirePlumber {m['wireplumber'].split()[-1]}",
        f"baseline: Python {m['python']}, pulsectl {m['pulsectl']}, pulsectl-asyncio {m['pulsectl-asyncio']}",
        f"load average (1, 5, 15 min): {report['load_before']} before, {report['load_after']} after",
    ]
    for kind in kinds:
        r = results[kind]
        text += ["", f"### {kind}", "", f"{r['server']}; load average at its start: {r.get('load', '?')}", "",
                 guard_table(r), "", fidelity_table(r)]
    text += ["", "### CPU per press, by thread", "",
             by_thread_table(results, kinds, ("cpu", "by_thread_us"), "µs per press", lambda v: f"{v:.0f}"),
             "", "### Idle wakeups, by thread", "",
             by_thread_table(results, kinds, ("idle", "by_thread_per_second"), "wakeups per second",
                             lambda v: f"{v:.2f}"),
             "", "### Details", "", details(results, kinds)]
    return "\n".join(text) + "\n"


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
