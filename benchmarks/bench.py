#!/usr/bin/env python3
"""The benchmark of issue 3: volume-guard against the audio server's floor and a pulsectl-asyncio baseline.

Run through scripts/bench, which builds everything this needs. For each server kind (PulseAudio, then
PipeWire), on a private server started by scripts/audio-server:

  floor         a client's volume set seen as a change event by another client;
  volume-guard  the release build, `volume-guard run --socket ...`;
  baseline      benchmarks/baseline_guard.py.

The measuring client is benchmarks/probe.c (vgprobe: C, one thread, libpulse's pa_mainloop); this script
only starts and stops things, waits, reads /proc and computes the figures. Every wait is bounded; every
server and guard it starts is stopped on the way out, whatever happened.
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
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HELD = 32768       # 50 % of PA_VOLUME_NORM
STEP = 3277        # 5 %
CLK_TCK = os.sysconf("SC_CLK_TCK")

FULL = dict(floor=1000, latency=1000, fanout=300, subscribers=200, rate=200, burst=200, idle=10.0)
QUICK = dict(floor=100, latency=100, fanout=30, subscribers=200, rate=50, burst=50, idle=2.0)

TARGETS = {
    "press": "p50 ≤ floor + 0.3 ms, p99 < 2 ms",
    "restore": "p99 < 2 ms",
    "rate": "0 lost, 0 extra",
    "burst": "lost + extra ≤ 2 / 200",
    "fanout": "p99 < 5 ms",
    "rss": "< 16 MB",
    "idle": "0 ticks",
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

def proc_cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])   # utime, stime (fields 14, 15 of stat)


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


def proc_threads(pid):
    """Times each thread was scheduled in (schedstat), by thread id."""
    counts = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                counts[tid] = int(f.read().split()[2])
        except (FileNotFoundError, ValueError, IndexError):
            pass
    return counts


def proc_status(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])   # kB
    return None


def smaps_rollup(pid):
    values = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            match = re.match(r"^(\w+):\s+(\d+) kB", line)
            if match:
                values[match.group(1)] = int(match.group(2))
    return values


def rss_by_mapping(pid, top=8):
    """Resident kB per mapped file (anonymous memory and the heap grouped under their names)."""
    totals = {}
    name = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                parts = line.split(maxsplit=5)
                name = parts[5].strip() if len(parts) > 5 else "[anonymous]"
                name = os.path.basename(name) if name.startswith("/") else name
            elif line.startswith("Rss:"):
                totals[name] = totals.get(name, 0) + int(line.split()[1])
    return sorted(totals.items(), key=lambda kv: -kv[1])[:top]


# ------------------------------------------------------------------ the pieces

class Bench:
    def __init__(self, args):
        self.args = args
        self.sizes = QUICK if args.quick else FULL
        self.cleanup = Cleanup(args.state)
        self.env = None
        self.logs = args.out

    def run_probe(self, mode, *extra, socket_path=None, timeout=300):
        command = [self.args.probe, mode, "--held", str(HELD), "--step", str(STEP), "--limit-s", str(timeout)]
        if socket_path:
            command += ["--socket", socket_path]
        command += [str(x) for x in extra]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        result = subprocess.run(command, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                timeout=timeout + 10)
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        for line in result.stderr.splitlines():
            log(f"  probe {mode}: {line}")
        if result.returncode:
            raise Failure(f"vgprobe {mode} exited {result.returncode}")
        data = json.loads(result.stdout)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        data["probe_cpu_percent"] = round(100 * cpu / wall, 1) if wall > 0 else None
        data["probe_wall_s"] = round(wall, 2)
        data["probe_notes"] = result.stderr.splitlines()
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
        self.env = dict(os.environ, XDG_RUNTIME_DIR=exported["XDG_RUNTIME_DIR"], PULSE_SERVER=exported["PULSE_SERVER"])
        info = subprocess.run(["pactl", "info"], env=self.env, stdout=subprocess.PIPE, text=True, timeout=10).stdout
        name = re.search(r"^Server Name: (.*)$", info, re.M)
        version = re.search(r"^Server Version: (.*)$", info, re.M)
        return exported, f"{name.group(1) if name else '?'} {version.group(1) if version else '?'}"

    def start_guard(self, name, command, socket_path):
        log_file = open(os.path.join(self.logs, f"{self.kind}-{name}.log"), "w")
        process = subprocess.Popen(command, env=self.env, stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file)
        log_file.close()
        self.cleanup.add_process(name, process)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise Failure(f"{name} exited with {process.returncode} during start; see {log_file.name}")
            if self.ready(socket_path, name == "volume-guard"):
                return process
            time.sleep(0.05)
        raise Failure(f"{name} did not get ready within 15 s; see {log_file.name}")

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

    def idle(self, pid, socket_path):
        """CPU of `pid` over the idle period, with one subscriber connected and nothing happening."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(socket_path)
            s.sendall(b'{"cmd":"subscribe"}\n')
            time.sleep(0.5)
            ticks0, ns0, threads0 = proc_cpu_ticks(pid), proc_cpu_ns(pid), proc_threads(pid)
            time.sleep(self.sizes["idle"])
            ticks1, ns1, threads1 = proc_cpu_ticks(pid), proc_cpu_ns(pid), proc_threads(pid)
        # Wakeups of the threads that lived through the period, and of those that started in it.
        wakeups = sum(count - threads0.get(tid, 0) for tid, count in threads1.items())
        return {"seconds": self.sizes["idle"], "ticks": ticks1 - ticks0, "clk_tck": CLK_TCK,
                "cpu_ms": round((ns1 - ns0) / 1e6, 3), "wakeups": wakeups,
                "threads_ended": len(set(threads0) - set(threads1)), "threads_started": len(set(threads1) - set(threads0))}

    def measure_guard(self, name, command, socket_path):
        sizes = self.sizes
        self.hold()
        process = self.start_guard(name, command, socket_path)
        result = {"command": " ".join(os.path.relpath(c, REPO) if c.startswith(REPO) else c for c in command)}
        log(f"  {name}: press and restore latency ({sizes['latency']} samples)")
        server = session_pids(self.server_sid)
        guard0, server0 = proc_cpu_ns(process.pid), cpu_ns_of(server)
        result["latency"] = self.run_probe("latency", "--samples", sizes["latency"], socket_path=socket_path)
        # CPU per press (the press, its reset and their echoes), of the guard and of the server's processes.
        result["cpu_per_press_ms"] = round((proc_cpu_ns(process.pid) - guard0) / 1e6 / sizes["latency"], 3)
        result["server_cpu_per_press_ms"] = round((cpu_ns_of(server) - server0) / 1e6 / sizes["latency"], 3)
        log(f"  {name}: {sizes['rate']} presses at 50 Hz")
        result["rate"] = self.run_probe("rate", "--steps", sizes["rate"], "--interval-ms", 20, socket_path=socket_path)
        log(f"  {name}: burst of {sizes['burst']} presses")
        result["burst"] = self.run_probe("burst", "--steps", sizes["burst"], socket_path=socket_path)
        log(f"  {name}: fan-out to {sizes['subscribers']} subscribers ({sizes['fanout']} samples)")
        result["fanout"] = self.run_probe("fanout", "--subscribers", sizes["subscribers"], "--samples", sizes["fanout"],
                                          "--timeout-ms", 3000, socket_path=socket_path)
        log(f"  {name}: idle CPU over {sizes['idle']:.0f} s")
        result["idle"] = self.idle(process.pid, socket_path)
        result["rss_kb"] = proc_status(process.pid, "VmRSS")
        result["hwm_kb"] = proc_status(process.pid, "VmHWM")
        result["threads"] = proc_status(process.pid, "Threads")
        result["rss_top"] = rss_by_mapping(process.pid)
        result["memory"] = smaps_rollup(process.pid)
        result["exit_status"] = self.cleanup.stop_process(name)
        return result

    def run_server(self, kind):
        self.kind = kind
        log(f"{kind}: starting a private server")
        exported, version = self.start_server(kind)
        out = {"server": version}
        try:
            self.hold()
            log(f"{kind}: floor ({self.sizes['floor']} samples)")
            out["floor"] = self.run_probe("floor", "--samples", self.sizes["floor"])
            directory = exported["AUDIO_SERVER_DIR"]
            vg_socket = os.path.join(directory, "vg.sock")
            out["volume-guard"] = self.measure_guard(
                "volume-guard", [self.args.bin, "run", "--socket", vg_socket], vg_socket)
            # The burst again with the key step configured rather than learned, to separate the two causes of
            # a miscount (see docs/PERFORMANCE.md).
            self.hold()
            self.start_guard("volume-guard", [self.args.bin, "run", "--socket", vg_socket, "--step", "5"], vg_socket)
            log(f"  volume-guard --step 5: burst of {self.sizes['burst']} presses")
            out["volume-guard-step5-burst"] = self.run_probe("burst", "--steps", self.sizes["burst"], socket_path=vg_socket)
            self.cleanup.stop_process("volume-guard")
            bl_socket = os.path.join(directory, "baseline.sock")
            out["baseline"] = self.measure_guard(
                "baseline", [sys.executable, os.path.join(REPO, "benchmarks/baseline_guard.py"), "--socket", bl_socket],
                bl_socket)
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
        "pulseaudio": run(["pulseaudio", "--version"]),
        "pipewire": run(["pipewire", "--version"]).splitlines()[-1],
        "wireplumber": run(["wireplumber", "--version"]).splitlines()[-1],
        "python": platform.python_version(),
        "pulsectl": package_version("pulsectl"),
        "pulsectl-asyncio": package_version("pulsectl-asyncio"),
    }


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


# ------------------------------------------------------------------ the table

def ms(value):
    return "–" if value is None else f"{value:.2f}"


def pair(stats):
    return "–" if not stats else f"{ms(stats['p50_ms'])} / {ms(stats['p99_ms'])}"


def lost_extra(run, counted_by, expected):
    counted = run["count"] if counted_by == "count" else run["lines"]
    return max(0, expected - counted), max(0, counted - expected), counted


def figures(result, kind_floor):
    """The headline figures of one guard, with pass/fail against the targets."""
    f = {}
    latency = result["latency"]
    f["press"] = summary(latency["press_us"])
    # The same sets' change events at the observer: a floor measured in the same run, sample by sample.
    paired = [p - e for p, e in zip(latency["press_us"], latency["event_us"]) if e >= 0]
    f["in_run_floor"] = summary([e for e in latency["event_us"] if e >= 0])
    f["over_floor"] = summary(paired)
    f["restore"] = summary(latency["restore_us"])
    f["fanout"] = summary(result["fanout"]["last_us"])
    counted_by = "count" if result["command"].split()[0].endswith("volume-guard") else "lines"
    f["rate"] = lost_extra(result["rate"], counted_by, result["rate"]["steps"])
    f["burst"] = lost_extra(result["burst"], counted_by, result["burst"]["steps"])
    f["rss_mb"] = result["rss_kb"] / 1024
    f["idle"] = result["idle"]
    floor_p50 = kind_floor["p50_ms"] if kind_floor else None
    f["ok"] = {
        "press_p50": bool(f["press"] and floor_p50 is not None and f["press"]["p50_ms"] <= floor_p50 + 0.3
                          and latency["missing_press"] == 0),
        "press_p99": bool(f["press"] and f["press"]["p99_ms"] < 2 and latency["missing_press"] == 0),
        "restore": bool(f["restore"] and f["restore"]["p99_ms"] < 2 and latency["missing_restore"] == 0),
        "rate": f["rate"][0] == 0 and f["rate"][1] == 0,
        "burst": f["burst"][0] + f["burst"][1] <= 2 * result["burst"]["steps"] / 200,
        "fanout": bool(f["fanout"] and f["fanout"]["p99_ms"] < 5 and result["fanout"]["missing_press"] == 0),
        "rss": f["rss_mb"] < 16,
        "idle": f["idle"]["ticks"] == 0,
    }
    return f


def table(results, kinds):
    mark = lambda ok: "✓" if ok else "✗"
    header = ["measure (ms: p50 / p99)", "target"]
    for kind in kinds:
        short = "PA" if kind == "pulseaudio" else "PW"
        header += [f"{short} floor", f"{short} volume-guard", f"{short} baseline"]
    rows = []
    per = {}
    for kind in kinds:
        r = results[kind]
        floor = summary(r["floor"]["event_us"])
        per[kind] = (floor, figures(r["volume-guard"], floor), figures(r["baseline"], floor))

    def row(label, target, cell):
        line = [label, target]
        for kind in kinds:
            floor, vg, bl = per[kind]
            line += cell(floor, vg, bl, results[kind])
        rows.append(line)

    row("press latency", TARGETS["press"],
        lambda fl, vg, bl, r: [pair(fl), "–" if not vg["press"] else
                               f"{ms(vg['press']['p50_ms'])} {mark(vg['ok']['press_p50'])} / "
                               f"{ms(vg['press']['p99_ms'])} {mark(vg['ok']['press_p99'])}", pair(bl["press"])])
    row("press − the same set's event, paired", "(diagnostic)",
        lambda fl, vg, bl, r: ["", pair(vg["over_floor"]), pair(bl["over_floor"])])
    row("restore latency", TARGETS["restore"],
        lambda fl, vg, bl, r: ["", f"{pair(vg['restore'])} {mark(vg['ok']['restore'])}", pair(bl["restore"])])
    row("50 Hz: lost / extra (net)", TARGETS["rate"],
        lambda fl, vg, bl, r: ["", f"{vg['rate'][0]} / {vg['rate'][1]} of {r['volume-guard']['rate']['steps']} "
                                   f"{mark(vg['ok']['rate'])}",
                               f"{bl['rate'][0]} / {bl['rate'][1]} of {r['baseline']['rate']['steps']}"])
    row("burst: lost / extra (net)", TARGETS["burst"],
        lambda fl, vg, bl, r: ["", f"{vg['burst'][0]} / {vg['burst'][1]} of {r['volume-guard']['burst']['steps']} "
                                   f"{mark(vg['ok']['burst'])}",
                               f"{bl['burst'][0]} / {bl['burst'][1]} of {r['baseline']['burst']['steps']}"])
    row("burst, `--step 5`: lost / extra (net)", "(diagnostic)",
        lambda fl, vg, bl, r: ["", "{} / {} of {}".format(*lost_extra(r["volume-guard-step5-burst"], "count",
                                                                      r["volume-guard-step5-burst"]["steps"])[:2],
                                                          r["volume-guard-step5-burst"]["steps"]), ""])
    row(f"fan-out to {results[kinds[0]]['volume-guard']['fanout']['subscribers']} (last)", TARGETS["fanout"],
        lambda fl, vg, bl, r: ["", f"{pair(vg['fanout'])} {mark(vg['ok']['fanout'])}", pair(bl["fanout"])])
    row("RSS after the runs (MB)", TARGETS["rss"],
        lambda fl, vg, bl, r: ["", f"{vg['rss_mb']:.1f} {mark(vg['ok']['rss'])}", f"{bl['rss_mb']:.1f}"])
    row("idle CPU: ticks (wakeups) over the idle time", TARGETS["idle"],
        lambda fl, vg, bl, r: ["", f"{vg['idle']['ticks']} ({vg['idle']['wakeups']}) {mark(vg['ok']['idle'])}",
                               f"{bl['idle']['ticks']} ({bl['idle']['wakeups']})"])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def details(results, kinds):
    """Everything else worth a look: counts behind the figures, probe load, anomalies."""
    out = []
    for kind in kinds:
        r = results[kind]
        out.append(f"{kind} ({r['server']}):")
        floor = r["floor"]
        out.append(f"  floor: {len(floor['event_us'])} samples, missing {floor['missing']}, event max "
                   f"{max(floor['event_us']) / 1000:.2f} ms; set acknowledged {pair(summary(floor['ack_us']))} ms; "
                   f"change first read by the observer {pair(summary(floor['visible_us']))} ms (first reading stale "
                   f"{floor['first_read_stale']} times); a read's round trip {pair(summary(floor['rtt_us']))} ms; "
                   f"probe CPU {floor['probe_cpu_percent']} %")
        for name in ("volume-guard", "baseline"):
            g = r[name]
            lat, fan = g["latency"], g["fanout"]
            out.append(f"  {name}: {g['command']}")
            out.append(f"    latency: {lat['samples']} samples, missing press {lat['missing_press']}, missing restore "
                       f"{lat['missing_restore']}, extra lines {lat['extra_lines']} (count {lat['extra_count']}), "
                       f"the same sets' events at the observer {pair(summary([e for e in lat['event_us'] if e >= 0]))} ms, "
                       f"restores seen without the change {lat['restore_without_seen_change']}, recoveries "
                       f"{lat['recoveries']}, seq gaps {lat['seq_gaps']}, press max "
                       f"{max(lat['press_us'] or [0]) / 1000:.2f} ms, probe CPU {lat['probe_cpu_percent']} %")
            out.append(f"    CPU per press (press, reset and echoes, over the latency run): guard "
                       f"{g.get('cpu_per_press_ms', '?')} ms, the server's processes {g.get('server_cpu_per_press_ms', '?')} ms")
            for mode in ("rate", "burst"):
                m = g[mode]
                out.append(f"    {mode}: {m['steps']} steps sent in {m['sent_us'] / 1000:.0f} ms; {m['lines']} lines, "
                           f"count {m['count']} (up {m['up']}, down {m['down']}, mute {m['mute']}); setter reads not at "
                           f"the held level {m['stale_reads']}; final level {'held' if m['final_held'] else m['final_raw']}"
                           f"; seq gaps {m['seq_gaps']}")
            first = summary(fan["first_us"])
            out.append(f"    fan-out: {len(fan['last_us'])} samples, missing {fan['missing_press']}, first subscriber "
                       f"{pair(first)} ms, restore {pair(summary(fan['restore_us']))} ms, probe CPU "
                       f"{fan['probe_cpu_percent']} %")
            mem = g["memory"]
            out.append(f"    memory (kB): RSS {mem.get('Rss')}, PSS {mem.get('Pss')}, shared clean {mem.get('Shared_Clean')}, "
                       f"private clean {mem.get('Private_Clean')}, private dirty {mem.get('Private_Dirty')}, "
                       f"anonymous {mem.get('Anonymous')}")
            out.append(f"    RSS {g['rss_kb']} kB (peak {g['hwm_kb']} kB), threads {g['threads']}, idle "
                       f"{g['idle']['cpu_ms']} ms CPU and {g['idle']['wakeups']} wakeups in {g['idle']['seconds']:.0f} s "
                       f"({g['idle']['threads_ended']} threads ended, {g['idle']['threads_started']} started), "
                       f"exit status {g['exit_status']}")
            if name == "volume-guard":
                out.append("    largest resident mappings (kB): " + ", ".join(f"{n} {kb}" for n, kb in g["rss_top"]))
        b5 = r["volume-guard-step5-burst"]
        out.append(f"  volume-guard --step 5, burst: {b5['lines']} lines, count {b5['count']} of {b5['steps']}; setter "
                   f"reads not at the held level {b5['stale_reads']}")
    return "\n".join(out)


def render(report):
    results = report["results"]
    kinds = list(results)
    m = report["machine"]
    text = [
        f"volume-guard benchmark, {report['date']}{' (quick)' if report['quick'] else ''}, {report['seconds']:.0f} s",
        f"machine: {m['nproc']} × {m['cpu']}, kernel {m['kernel']}, {m['os']}, {m['swift']}",
        f"servers: {', '.join(results[k]['server'] for k in kinds)}; libpulse {m['libpulse']}; "
        f"WirePlumber {m['wireplumber'].split()[-1]}",
        f"baseline: Python {m['python']}, pulsectl {m['pulsectl']}, pulsectl-asyncio {m['pulsectl-asyncio']}",
        f"load average (1, 5, 15 min): {report['load_before']} before, {report['load_after']} after",
        "",
        table(results, kinds),
        "",
        details(results, kinds),
    ]
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
