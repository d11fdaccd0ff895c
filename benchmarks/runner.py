"""The measurements themselves: the Bench class starts a private audio server and each guard on it, runs
the measuring client (vgprobe) and the other patterns' steppers, and collects each guard's figures."""
import json
import os
import re
import resource
import socket
import subprocess
import sys
import time

from cleanup import Cleanup
from common import FULL, GUARDS, HELD, PATTERNS, QUICK, REPO, STEP, Failure, at_held, log
from procfs import cpu_ns_of, loadavg, memory, proc_cpu_ns, session_pids, thread_deltas, threads
from subscriber import Subscriber, tally


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
        if not at_held(data["raw"]):
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
