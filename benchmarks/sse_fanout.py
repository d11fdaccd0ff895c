#!/usr/bin/env python3
"""The HTTP listener's fan-out beside the control socket's, for the closing figures of issue 26.

Starts a private PulseAudio (scripts/audio-server) and `volume-guard run --http`, opens STREAMS event
streams (`GET /events`) and one socket subscriber, makes presses with pactl, and reports for each press
the time from just before the set to the event at the *last* stream, beside the time to the socket
subscriber's line, in the same run. Receive times are the kernel's (SO_TIMESTAMPNS), so this reader's
own pace over a thousand sockets does not count. With the most streams it reports the daemon's anonymous
memory (RssAnon). Figures, not asserts.

    benchmarks/sse_fanout.py --bin .build/release/volume-guard [--streams 200,1000] [--presses 30]
"""

import argparse
import json
import os
import re
import resource
import selectors
import shlex
import socket
import statistics
import struct
import subprocess
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
SEQ = re.compile(rb'"seq":(\d+)')


def audio_server() -> dict[str, str]:
    output = subprocess.run([str(REPOSITORY / "scripts/audio-server"), "--pulseaudio"], stdout=subprocess.PIPE, text=True, check=True).stdout
    environment = {}
    for line in output.splitlines():
        if line.startswith("export "):
            key, _, value = line.removeprefix("export ").partition("=")
            environment[key] = "".join(shlex.split(value))
    return environment


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Reader:
    """Every connection's press seqs, with the kernel's receive time of the first bytes that held each."""

    def __init__(self) -> None:
        self.selector = selectors.DefaultSelector()
        self.seen: dict[socket.socket, dict[int, int]] = {}
        self.tails: dict[socket.socket, bytes] = {}

    def add(self, connection: socket.socket) -> None:
        connection.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        connection.setblocking(False)
        self.selector.register(connection, selectors.EVENT_READ)
        self.seen[connection] = {}
        self.tails[connection] = b""

    def pump(self, timeout: float) -> None:
        for key, _ in self.selector.select(timeout):
            connection = key.fileobj
            try:
                data, ancillary, _, _ = connection.recvmsg(1 << 16, socket.CMSG_SPACE(16))
            except BlockingIOError:
                continue
            if not data:
                raise SystemExit("a connection ended")
            stamp = time.time_ns()
            for level, kind, value in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    seconds, nanoseconds = struct.unpack("qq", value[:16])
                    stamp = seconds * 1_000_000_000 + nanoseconds
            text = self.tails[connection] + data
            for match in SEQ.finditer(text):
                self.seen[connection].setdefault(int(match.group(1)), stamp)
            self.tails[connection] = text[-32:]

    def wait(self, connections: list[socket.socket], seq: int, deadline: float) -> None:
        while any(seq not in self.seen[c] for c in connections):
            if time.monotonic() > deadline:
                missing = sum(seq not in self.seen[c] for c in connections)
                raise SystemExit(f"press {seq} did not reach {missing} connections")
            self.pump(0.5)


def open_stream(port: int, reader: Reader) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    buffered = b""
    while b'"type":"subscribed"' not in buffered:
        chunk = connection.recv(4096)
        if not chunk:
            raise SystemExit("a stream ended before it was subscribed")
        buffered += chunk
    reader.add(connection)
    return connection


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=str(REPOSITORY / ".build/release/volume-guard"))
    parser.add_argument("--streams", default="200,1000")
    parser.add_argument("--presses", type=int, default=30)
    arguments = parser.parse_args()
    counts = sorted(int(count) for count in arguments.streams.split(","))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    environment = audio_server()
    pactl_environment = os.environ | environment
    directory = tempfile.mkdtemp(prefix="vg-sse-bench-")
    port = free_port()
    socket_path = f"{directory}/volume-guard.sock"
    # Half way before the guard holds it, so that presses up never meet 100 %.
    subprocess.run(["pactl", "set-sink-volume", "guard_a", "50%"], env=pactl_environment, check=True)
    daemon = subprocess.Popen(
        [arguments.bin, "run", "--socket", socket_path, "--http", f"127.0.0.1:{port}", "--step", "5"],
        env=pactl_environment | {"XDG_CONFIG_HOME": f"{directory}/config", "XDG_STATE_HOME": f"{directory}/state"},
        stdout=subprocess.DEVNULL, stderr=open(f"{directory}/volume-guard.log", "wb"),
    )
    results = {}
    try:
        deadline = time.monotonic() + 20
        while not os.path.exists(socket_path):
            if time.monotonic() > deadline:
                raise SystemExit("the daemon did not start")
            time.sleep(0.05)
        time.sleep(0.5)
        reader = Reader()
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.connect(socket_path)
        unix.sendall(b'{"cmd":"subscribe"}\n')
        unix.recv(4096)
        reader.add(unix)
        streams: list[socket.socket] = []
        seq = 0
        for count in counts:
            while len(streams) < count:
                streams.append(open_stream(port, reader))
            last_stream, on_socket = [], []
            for number in range(arguments.presses):
                seq += 1
                started = time.time_ns()
                step = "+5%" if number % 2 == 0 else "-5%"
                subprocess.run(["pactl", "set-sink-volume", "guard_a", step], env=pactl_environment, check=True)
                reader.wait(streams + [unix], seq, time.monotonic() + 30)
                last_stream.append((max(reader.seen[s][seq] for s in streams) - started) / 1e6)
                on_socket.append((reader.seen[unix][seq] - started) / 1e6)
                time.sleep(0.05)
            status = Path(f"/proc/{daemon.pid}/status").read_text()
            anonymous = int(re.search(r"RssAnon:\s+(\d+)", status).group(1))
            results[count] = {
                "last_stream_ms": {"median": statistics.median(last_stream), "p90": statistics.quantiles(last_stream, n=10)[-1], "max": max(last_stream)},
                "socket_ms": {"median": statistics.median(on_socket), "p90": statistics.quantiles(on_socket, n=10)[-1], "max": max(on_socket)},
                "rss_anon_kib": anonymous,
            }
            print(f"{count} streams: set -> last stream median {results[count]['last_stream_ms']['median']:.2f} ms "
                  f"(p90 {results[count]['last_stream_ms']['p90']:.2f}), set -> socket median "
                  f"{results[count]['socket_ms']['median']:.2f} ms (p90 {results[count]['socket_ms']['p90']:.2f}); "
                  f"RssAnon {anonymous} KiB", flush=True)
    finally:
        daemon.terminate()
        daemon.wait(20)
        subprocess.run([str(REPOSITORY / "scripts/audio-server"), "--stop"], env=os.environ | environment, check=False)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
