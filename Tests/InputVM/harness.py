"""The daemon under test in the guest, driven through its socket, and the suite's checks.

Python's standard library only: the guest runs its root's /usr/bin/python3 through the chroot (the host's, or
the arm64 root's). Waits are for a line, a state or a process, bounded by generous timeouts (everything in the
guest runs 10 to 50 times slower than on the host); nothing is asserted about speed.
"""

import json
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[2]
# The checkout's Python client, the one the hidden suite drives the daemon with too.
sys.path.insert(0, str(REPOSITORY / "clients" / "python" / "src"))

WAIT = 30.0
"""Seconds to wait for something that should happen."""
START_WAIT = 180.0
"""Seconds for a daemon to answer on its socket: its Swift libraries are read over 9p."""
SCRATCH = Path("/run/input-suite")
"""The suite's writable place: scripts/input-vm's tmpfs."""

Message = dict[str, Any]


class Timeout(Exception):
    pass


class Account:
    """A user of the root's /etc/passwd with a home, runtime, state and config directory of its own on the
    tmpfs, as a login would give it."""

    def __init__(self, user: str, label: str) -> None:
        entry = pwd.getpwnam(user)
        self.user, self.uid, self.gid = user, entry.pw_uid, entry.pw_gid
        self.root = SCRATCH / label
        self.home, self.runtime = self.root / "home", self.root / "runtime"
        self.state, self.config = self.root / "state", self.root / "config"
        for directory in (self.root, self.home, self.runtime, self.state, self.config):
            directory.mkdir(parents=True)
            os.chown(directory, self.uid, self.gid)
        self.runtime.chmod(0o700)

    @property
    def environment(self) -> dict[str, str]:
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(self.home),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "XDG_STATE_HOME": str(self.state),
            "XDG_CONFIG_HOME": str(self.config),
        }

    def write_config(self, text: str) -> Path:
        path = self.config / "volume-guard" / "config.toml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        for item in (path.parent, path):
            os.chown(item, self.uid, self.gid)
        return path

    @property
    def as_user(self) -> dict[str, Any]:
        """What a child of this user's is started with: the environment, the user and no extra groups."""
        return {
            "env": self.environment,
            "user": self.uid,
            "group": self.gid,
            "extra_groups": [],
            "stdin": subprocess.DEVNULL,
        }

    def popen(self, command: list[str], **options: Any) -> subprocess.Popen[bytes]:
        return subprocess.Popen(command, **self.as_user, **options)

    def run(self, command: list[str], timeout: float = START_WAIT) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, **self.as_user, capture_output=True, text=True, timeout=timeout)


def executable(path: Path) -> Path:
    """The daemon under test as any user can run it: a checkout that others cannot reach (under /root, say)
    has its executable copied to the tmpfs first."""
    if not path.is_file():
        raise SystemExit(f"input-suite: no daemon at {path}: build it first (swift build, or scripts/build-release)")
    reachable = all(os.stat(parent).st_mode & stat.S_IXOTH for parent in path.parents)
    if reachable and os.stat(path).st_mode & stat.S_IXOTH:
        return path
    copy = SCRATCH / "bin" / path.name
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(path, copy)
    copy.chmod(0o755)
    print(f"INFO {path} is not reachable by other users: running a copy, {copy}", flush=True)
    return copy


def open_files(pid: int) -> set[str]:
    """The files process `pid` has open now, by path."""
    files = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            files.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except FileNotFoundError:  # closed meanwhile
            pass
    return files


def connect(path: Path) -> socket.socket:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(WAIT)
    connection.connect(str(path))
    return connection


class Subscriber:
    """A subscribed connection: every line the daemon sends, kept with the time it arrived."""

    def __init__(self, path: Path, request: Message | None = None) -> None:
        self.lines: list[tuple[float, Message]] = []
        self.ended = False
        self._changed = threading.Condition()
        self._connection = connect(path)
        self._connection.sendall(json.dumps(request or {"cmd": "subscribe"}).encode() + b"\n")
        self._connection.settimeout(None)
        self.reply = None
        threading.Thread(target=self._read, daemon=True).start()
        self.reply = self.wait_for("the subscribe reply", lambda message: True, after=0)

    def _read(self) -> None:
        with self._connection.makefile("rb") as lines:
            for line in lines:
                arrived = time.time()
                with self._changed:
                    self.lines.append((arrived, json.loads(line)))
                    self._changed.notify_all()
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def mark(self) -> int:
        """Where the lines from now on begin, for `wait_for` and `since`."""
        with self._changed:
            return len(self.lines)

    def since(self, mark: int) -> list[Message]:
        with self._changed:
            return [message for _, message in self.lines[mark:]]

    def wait_for(self, what: str, predicate: Callable[[Message], bool], after: int, timeout: float = WAIT) -> Message:
        """The first line at or after `after` that `predicate` accepts; Timeout names `what` and shows the lines."""
        return self.wait_for_timed(what, predicate, after, timeout)[1]

    def wait_for_timed(
        self, what: str, predicate: Callable[[Message], bool], after: int, timeout: float = WAIT
    ) -> tuple[float, Message]:
        """`wait_for`, with the time the line arrived."""
        deadline = time.monotonic() + timeout
        with self._changed:
            index = after
            while True:
                while index < len(self.lines):
                    if predicate(self.lines[index][1]):
                        return self.lines[index]
                    index += 1
                left = deadline - time.monotonic()
                if left <= 0 or self.ended:
                    seen = "\n    ".join(json.dumps(message) for _, message in self.lines[after:]) or "nothing"
                    ending = "the connection ended" if self.ended else f"not within {timeout:.0f} s"
                    raise Timeout(f"{what}: {ending}; lines since:\n    {seen}")
                self._changed.wait(left)

    def wait_end(self, timeout: float = WAIT) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self.ended, timeout)

    def close(self) -> None:
        self._connection.shutdown(socket.SHUT_RDWR)
        self._connection.close()


class Daemon:
    """`volume-guard run ARGS...` as `account`, with its log in a file; its socket is the account's default."""

    def __init__(self, binary: Path, account: Account, arguments: list[str], label: str) -> None:
        self.binary, self.account, self.arguments, self.label = binary, account, arguments, label
        self.socket = account.runtime / "volume-guard.sock"
        self.log_path = account.root / f"{label}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> float:
        """Starts it and waits until it answers; returns the seconds that took."""
        began = time.monotonic()
        with open(self.log_path, "wb") as log:
            self.process = self.account.popen(
                [str(self.binary), "run", *self.arguments], stdout=log, stderr=subprocess.STDOUT
            )
        deadline = began + START_WAIT
        while True:
            try:
                if self.request({"cmd": "ping"}).get("type") == "pong":
                    return time.monotonic() - began
            except OSError:
                pass
            if self.process.poll() is not None:
                raise Timeout(f"{self.label} exited with status {self.process.returncode} before answering")
            if time.monotonic() > deadline:
                raise Timeout(f"{self.label} did not answer on {self.socket} within {START_WAIT:.0f} s")
            time.sleep(0.1)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def request(self, request: Message) -> Message:
        with connect(self.socket) as connection, connection.makefile("rb") as lines:
            connection.sendall(json.dumps(request).encode() + b"\n")
            line = lines.readline()
        if not line:
            raise ConnectionError(f"{self.label} closed the connection without a reply to {request}")
        return json.loads(line)

    def status(self) -> Message:
        return self.request({"cmd": "status"})

    def device_entries(self, status: Message | None = None) -> list[Message]:
        return list((status or self.status()).get("devices", []))

    def wait_status(self, what: str, predicate: Callable[[Message], bool], timeout: float = WAIT) -> Message:
        """The first status reply `predicate` accepts, asking again until it comes."""
        deadline = time.monotonic() + timeout
        while not predicate(status := self.status()):
            if time.monotonic() > deadline:
                raise Timeout(f"{what}: not within {timeout:.0f} s; the last status: {json.dumps(status)}")
            time.sleep(0.1)
        return status

    def wait_device(self, what: str, predicate: Callable[[Message], bool], timeout: float = WAIT) -> Message:
        """The first status device entry `predicate` accepts, asking again until it comes."""
        deadline = time.monotonic() + timeout
        while True:
            entries = self.device_entries()
            for entry in entries:
                if predicate(entry):
                    return entry
            if time.monotonic() > deadline:
                shown = "\n    ".join(json.dumps(entry) for entry in entries) or "none"
                raise Timeout(f"{what}: not within {timeout:.0f} s; the status's devices:\n    {shown}")
            time.sleep(0.1)

    def subscribe(self, request: Message | None = None) -> Subscriber:
        return Subscriber(self.socket, request)

    def open_nodes(self) -> set[str]:
        """The files the daemon has open now, by path."""
        return open_files(self.pid)

    def stop(self) -> int:
        """SIGTERM, as systemd stops it; its exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise Timeout(f"{self.label} did not exit within {WAIT:.0f} s of SIGTERM")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_log(self, predicate: Callable[[str], bool], timeout: float = WAIT) -> str | None:
        """The first line of the log that `predicate` accepts, waiting for it to be written; None if none is."""
        deadline = time.monotonic() + timeout
        while True:
            for line in self.log().splitlines():
                if predicate(line):
                    return line
            if time.monotonic() > deadline:
                return None
            time.sleep(0.1)


class Checks:
    """One parsable line per check, `CHECK ok NAME` or `CHECK FAIL NAME: why`, and a last `RESULT` line.

    A scenario that raises (a line that never came, say) is one failed check of its own, with the daemon's
    log, and the suite goes on with the next scenario.
    """

    def __init__(self) -> None:
        self.passed = 0
        self.failed: list[str] = []
        self.scenario_name = "setup"
        self.began = time.monotonic()
        self.daemon: Daemon | None = None
        """The daemon the scenarios drive now: a failure shows its whole log at the end."""
        self.to_show: list[Daemon] = []
        self.completed = True
        """Whether the last scenario ran to its end: the ones after it may need what it made."""

    def check(self, name: str, condition: bool, detail: object = "") -> bool:
        full = f"{self.scenario_name}/{name}"
        if condition:
            self.passed += 1
            print(f"CHECK ok {full}", flush=True)
        else:
            self.failed.append(full)
            print(f"CHECK FAIL {full}: {detail}", flush=True)
            if self.daemon is not None and self.daemon not in self.to_show:
                self.to_show.append(self.daemon)
        return condition

    def equal(self, name: str, actual: object, expected: object) -> bool:
        return self.check(name, actual == expected, f"expected {expected!r}, got {actual!r}")

    def info(self, text: str) -> None:
        print(f"INFO {text}", flush=True)

    @contextmanager
    def scenario(self, name: str) -> Iterator[None]:
        self.scenario_name = name
        print(f"SCENARIO {name}", flush=True)
        began = time.monotonic()
        self.completed = False
        try:
            yield
            self.completed = True
        except Exception as error:
            self.check("completed", False, str(error) if isinstance(error, Timeout) else traceback.format_exc())
        print(f"INFO {name} took {time.monotonic() - began:.1f} s", flush=True)

    def result(self) -> int:
        for daemon in self.to_show:
            if daemon.log_path.exists():
                print(f"LOG {daemon.label}, which failed checks:", flush=True)
                print("\n".join(f"  | {line}" for line in daemon.log().splitlines()), flush=True)
        seconds = time.monotonic() - self.began
        print(f"RESULT passed={self.passed} failed={len(self.failed)} seconds={seconds:.1f}", flush=True)
        for name in self.failed:
            print(f"FAILED {name}", flush=True)
        return 1 if self.failed or not self.passed else 0
