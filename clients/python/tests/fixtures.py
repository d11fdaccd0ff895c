"""A private audio server and real daemons for the tests, and the package under test on sys.path.

Everything is found from this file's place, so the tests run from any working directory and any
checkout. The daemon is `$VOLUME_GUARD_BINARY`, else the checkout's `.build/debug/volume-guard`; the
server is `scripts/audio-server --pulseaudio`. Neither is ever skipped for: missing, they fail.
"""

import asyncio
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[3]
PACKAGE = REPOSITORY / "clients" / "python"
# The checkout's package, not a copy installed somewhere.
sys.path.insert(0, str(PACKAGE / "src"))

AUDIO_SERVER = str(REPOSITORY / "scripts" / "audio-server")
WAIT = 20.0
"""Seconds to wait for something that should happen: generous, as a loaded machine is slow."""


def binary() -> str:
    return os.environ.get("VOLUME_GUARD_BINARY") or str(REPOSITORY / ".build" / "debug" / "volume-guard")


def free_port() -> int:
    """A loopback port free now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def end(process: subprocess.Popen, signum: int, *, group: bool = False) -> int | None:
    """Sends `process` (its whole process group, with `group`) `signum`, and SIGKILL if it has not ended
    within WAIT seconds; its exit status."""
    send = (lambda sent: os.killpg(process.pid, sent)) if group else process.send_signal
    if process.poll() is None:
        send(signum)
        try:
            process.wait(WAIT)
        except subprocess.TimeoutExpired:
            send(signal.SIGKILL)
            process.wait()
    return process.returncode


def eventually(condition: Callable[[], bool], timeout: float = WAIT) -> bool:
    """Whether `condition` holds within `timeout`: a bounded wait, never a claim about speed."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


async def eventually_async(condition: Callable[[], bool], timeout: float = WAIT) -> bool:
    """`eventually` for asyncio tests: waits without blocking the loop."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


class AudioServer:
    """A private PulseAudio server with the sinks guard_a (the default) and guard_b."""

    def __init__(self) -> None:
        started = subprocess.run(
            [AUDIO_SERVER, "--pulseaudio"], stdout=subprocess.PIPE, text=True, check=True, timeout=120
        )
        self.environment: dict[str, str] = {}
        for line in started.stdout.splitlines():
            if line.startswith("export "):
                key, _, value = line.removeprefix("export ").partition("=")
                self.environment[key] = "".join(shlex.split(value))
        directory = self.environment["AUDIO_SERVER_DIR"]
        # pactl keeps its files in the server's directory, as scripts/audio-server's own calls do.
        self.pactl_environment = (
            os.environ
            | self.environment
            | {
                "HOME": f"{directory}/home",
                "XDG_CONFIG_HOME": f"{directory}/config",
            }
        )
        # Half way, so that presses up never meet 100 %.
        self.pactl("set-sink-volume", "guard_a", "50%")

    def pactl(self, *arguments: str) -> None:
        subprocess.run(["pactl", *arguments], env=self.pactl_environment, check=True, timeout=30)

    def stop(self) -> None:
        subprocess.run([AUDIO_SERVER, "--stop"], env=os.environ | self.environment, check=True, timeout=60)


class Daemon:
    """`volume-guard run` on `socket_path` (default: a new one), with its own config and state; through
    `launcher` if given (`ip netns exec booth`, to run it on a host of its own)."""

    def __init__(
        self, server: AudioServer, *arguments: str, socket_path: str | None = None, launcher: Sequence[str] = ()
    ) -> None:
        self.server = server
        self.directory = tempfile.mkdtemp(prefix="vg-test-")
        self.socket_path = socket_path or f"{self.directory}/volume-guard.sock"
        self.log_path = f"{self.directory}/volume-guard.log"
        environment = (
            os.environ
            | server.environment
            | {
                "XDG_CONFIG_HOME": f"{self.directory}/config",
                "XDG_STATE_HOME": f"{self.directory}/state",
            }
        )
        self.environment = environment
        command = [*launcher, binary(), "run", "--socket", self.socket_path, "--log-level", "debug", *arguments]
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                command, env=environment, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
        eventually(lambda: self.process.poll() is not None or self.state() == "guarding")
        if self.state() != "guarding":
            self.stop()  # its directory stays, for its log
            raise AssertionError(f"the daemon did not start guarding; its log:\n{self.log}")

    @property
    def log(self) -> str:
        return Path(self.log_path).read_text(errors="replace")

    def raw(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request, by hand: the fixtures do not lean on the package they test."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(WAIT)
            connection.connect(self.socket_path)
            connection.sendall(json.dumps(request).encode() + b"\n")
            with connection.makefile("rb") as lines:
                reply: dict[str, Any] = json.loads(lines.readline())
            return reply

    def state(self) -> str | None:
        try:
            return str(self.raw({"cmd": "status"})["state"])
        except (OSError, ValueError):
            return None

    def last_seq(self) -> int:
        return int(self.raw({"cmd": "status"})["last_seq"])

    def press(self, count: int = 1) -> None:
        """Presses volume up `count` times, one at a time: each waits until the daemon has counted it,
        so that two never merge into one."""
        for _ in range(count):
            before = self.last_seq()
            self.server.pactl("set-sink-volume", "guard_a", "+5%")
            if not eventually(lambda: self.last_seq() > before):
                raise AssertionError(f"the daemon saw no press; its log:\n{self.log}")

    def stop(self) -> int | None:
        """Ends the daemon as a service manager would (SIGTERM); its exit status."""
        return end(self.process, signal.SIGTERM)

    def close(self) -> None:
        """Stops the daemon and removes its directory (a cleanup: another daemon's socket may be in it)."""
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


class Collector:
    """Iterates a blocking `presses()` in a thread and keeps what it yields, for the test to look at."""

    def __init__(self, events: Iterable[Mapping[str, Any]]) -> None:
        self.events: list[Mapping[str, Any]] = []
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._collect, args=(events,), daemon=True)
        self._thread.start()

    def _collect(self, events: Iterable[Mapping[str, Any]]) -> None:
        try:
            for event in events:
                self.events.append(event)
        except BaseException as error:  # kept for the test to report
            self.error = error

    def join(self) -> bool:
        """Whether the iteration ended (after the iterator was closed)."""
        self._thread.join(WAIT)
        return not self._thread.is_alive()


def of_type(events: list[Mapping[str, Any]], kind: str) -> list[Mapping[str, Any]]:
    return [event for event in events if event["type"] == kind]


def seqs(events: list[Mapping[str, Any]]) -> list[int]:
    """The seqs of the presses among `events`, in order."""
    return [event["seq"] for event in of_type(events, "press")]
