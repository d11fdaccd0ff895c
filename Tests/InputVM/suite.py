"""The input-device source against a real kernel: uinput remotes, the daemon under test, its socket.

Runs in the VM of scripts/input-vm, as root (it makes devices), and runs the daemon as the unprivileged
user nobody, whom each device's node is given to as udev would give it to the logged-in user:

    scripts/input-vm /usr/bin/python3 Tests/InputVM/suite.py [--release]

The daemon is $VOLUME_GUARD_BINARY, else the checkout's .build/debug/volume-guard (.build/release with
--release). Prints one `CHECK ok|FAIL scenario/check` line per check, `INFO` lines (timings), the whole log
of a daemon that failed a check, and a last `RESULT passed=N failed=M seconds=S` line; exits 1 if any check
failed. scripts/test-input reads them.

Two daemons, as each takes seconds to start in the VM: one with `source = "input"` from its config file
and no audio server anywhere in the guest, for most scenarios; then one with `--source both` and a
private PulseAudio.
"""

import argparse
import fnmatch
import json
import os
import re
import select
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from harness import (
    REPOSITORY,
    SCRATCH,
    START_WAIT,
    WAIT,
    Account,
    Checks,
    Daemon,
    Message,
    Subscriber,
    Timeout,
    executable,
)
from remote import BUS_BLUETOOTH, Device, Reader, Remote
from volume_guard import Client  # the checkout's, which harness puts on sys.path

SHUTTER = "AB Shutter3"
PRESENTER_IDS = "1d57:ad03"
CLICKER_LINK = "/dev/input/by-id/usb-Wireless_Clicker-event-kbd"
SLOW = "Slow Remote"
AUDIO_SERVERS = ("pulseaudio", "pipewire", "pipewire-pulse", "wireplumber")

latencies: list[float] = []
"""Seconds from a key's down (written to uinput, which stamps the event then) to its press line."""


def is_press(device: Device, key: str):
    return lambda m: m.get("type") == "press" and m.get("device") == device.name and m.get("key") == key


def is_release(seq: int):
    return lambda m: m.get("type") == "release" and m.get("seq") == seq


def is_gesture(gesture: str, seq: int):
    return lambda m: m.get("type") == "gesture" and m.get("gesture") == gesture and m.get("seq") == seq


def from_device(messages: list[Message], device: Device) -> list[Message]:
    """The press lines of `device` among `messages`."""
    return [
        m
        for m in messages
        if m.get("type") == "press" and (m.get("device") == device.name or m.get("path") == device.node)
    ]


def entry_of(device: Device, state: str | None = None):
    return (
        lambda e: e.get("name") == device.name
        and e.get("path") == device.node
        and (state is None or e.get("state") == state)
    )


def tap(subscriber: Subscriber, device: Device, key: str) -> tuple[Message, Message]:
    """Down and up; the press and release lines they make."""
    mark = subscriber.mark()
    stamp = device.down(key)
    device.up(key)
    arrived, press = subscriber.wait_for_timed(f"the press of {key} on {device.name}", is_press(device, key), mark)
    latencies.append(arrived - stamp)
    release = subscriber.wait_for(f"the release of {key} on {device.name}", is_release(press["seq"]), mark)
    return press, release


def marker(subscriber: Subscriber, device: Device, key: str) -> list[Message]:
    """Taps a key the daemon takes, and returns the lines up to its press: any press a device the daemon
    must leave alone made before it would be among them (the daemon reads its devices in the order their
    events come)."""
    mark = subscriber.mark()
    device.press(key)
    press = subscriber.wait_for(f"the press of marker {key} on {device.name}", is_press(device, key), mark)
    lines = subscriber.since(mark)
    return lines[: lines.index(press)]


def read_lines(stream: IO[bytes], last: Callable[[str], bool], timeout: float = WAIT) -> list[str]:
    """A program's output lines, up to the one `last` accepts or for `timeout` seconds."""
    lines: list[str] = []
    pending = b""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0 and select.select([stream], [], [], left)[0]:
        chunk = os.read(stream.fileno(), 4096)
        if not chunk:
            break
        *complete, pending = (pending + chunk).split(b"\n")
        lines += [line.decode(errors="replace") for line in complete]
        if any(last(line) for line in lines):
            break
    return lines


def audio_servers_running() -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                name = (entry / "comm").read_text().strip()
            except OSError:
                continue
            if name in AUDIO_SERVERS:
                found.append(f"{name} (pid {entry.name})")
    return found


def left_alone(
    checks: Checks, daemon: Daemon, subscriber: Subscriber, device: Device, marker_device: Device, prefix: str = ""
) -> None:
    """A device the daemon must never open: a second reader gets its keys, no press comes of them, nothing
    grabs it, the daemon has no file open on it and its status does not list it. `prefix` starts the checks' names."""
    with Reader(device.node) as reader:
        device.down("KEY_VOLUMEUP")
        device.up("KEY_VOLUMEUP")
        got = [(event.key, event.value) for event in reader.wait(2, WAIT)]
        checks.equal(f"{prefix}a second reader gets its keys", got, [("KEY_VOLUMEUP", 1), ("KEY_VOLUMEUP", 0)])
        before = marker(subscriber, marker_device, "KEY_VOLUMEDOWN")
        checks.equal(f"{prefix}no press from it", from_device(before, device), [])
        checks.check(f"{prefix}nobody grabs it", not reader.grab_is_held())
    checks.check(
        f"{prefix}the daemon never opened it", device.node not in daemon.open_nodes(), sorted(daemon.open_nodes())
    )
    listed = [
        entry
        for entry in daemon.device_entries()
        if entry.get("path") == device.node or entry.get("name") == device.name
    ]
    checks.equal(f"{prefix}not in status", listed, [])


RULE_KEY = re.compile(r'\s*([A-Za-z_]+(?:\{[^}]*\})?)\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')


def udev_glob(pattern: str) -> str:
    """A udev match value as an fnmatch pattern: udev escapes a glob character with a backslash, fnmatch
    with brackets."""
    return re.sub(r"\\(.)", lambda escaped: "[" + escaped.group(1) + "]", pattern)


def udev_rule_gives(rule_text: str, device: Device) -> bool:
    """Whether a rule file gives `device`'s node to the logged-in user: a rule line that tags it `uaccess`
    and whose match keys all hold.

    Evaluates what such a rule matches on, as udev does for an input event node: SUBSYSTEM, KERNEL and the
    parent input device's ATTRS{name}, ATTRS{id/vendor} and ATTRS{id/product}, with shell patterns and
    `|` alternatives. A key of another kind, or a line this cannot read, is an error: the check could not
    judge the rule.
    """
    values = {
        "SUBSYSTEM": "input",
        "KERNEL": os.path.basename(device.node or ""),
        "ATTRS{name}": device.name,
        "ATTRS{id/vendor}": f"{device.vendor:04x}",
        "ATTRS{id/product}": f"{device.product:04x}",
        "ATTRS{id/bustype}": f"{device.bus:04x}",
    }
    for line in rule_text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        holds, tags, position = True, False, 0
        while position < len(line):
            token = RULE_KEY.match(line, position)
            if token is None:
                raise ValueError(f"cannot read the rule line at column {position}: {line}")
            position = token.end()
            key, operator, pattern = token.groups()
            if operator not in ("==", "!="):
                tags |= (key, operator, pattern) == ("TAG", "+=", "uaccess")
                continue
            if key not in values:
                raise ValueError(f"cannot judge the match key {key} in: {line}")
            matched = any(
                fnmatch.fnmatchcase(values[key], udev_glob(alternative)) for alternative in pattern.split("|")
            )
            holds &= matched if operator == "==" else not matched
        if holds and tags:
            return True
    return False


def gone_during_hold(checks: Checks, daemon: Daemon, subscriber: Subscriber, remote: Remote, user: Account) -> None:
    """`remote` disconnects while its key is held, then connects again: the hold ends, caused by the device
    going away, and the remote is taken again without a restart."""
    mark = subscriber.mark()
    remote.consumer.down("KEY_VOLUMEUP")
    press = subscriber.wait_for("the press", is_press(remote.consumer, "KEY_VOLUMEUP"), mark)
    subscriber.wait_for("hold_start", is_gesture("hold_start", press["seq"]), mark)
    gone_path = remote.consumer.node
    # As a Bluetooth remote that disconnects: the kernel sends its readers the held key's up (in a frame
    # closed by a SYN_REPORT of value 1), then the node hangs up.
    remote.destroy()
    release = subscriber.wait_for("the release", is_release(press["seq"]), mark)
    end = subscriber.wait_for("hold_end", is_gesture("hold_end", press["seq"]), mark)
    checks.equal("release cause", release.get("cause"), "device-gone")
    checks.equal("release path", release.get("path"), gone_path)
    checks.equal("hold_end cause", end.get("cause"), "device-gone")
    daemon.wait_device("absent once gone", lambda e: e.get("match") == SHUTTER and e.get("state") == "absent")
    remote.create().give_to(user.uid, user.gid)
    for device in remote.devices:
        daemon.wait_device(f"{device.name} grabbed again", entry_of(device, "grabbed"))
    press, _ = tap(subscriber, remote.consumer, "KEY_VOLUMEUP")
    checks.equal("a press from it again", press.get("path"), remote.consumer.node)


def rig(checks: Checks, binary: Path) -> None:
    """What the scenarios stand on: remotes the kernel describes as they were set up, readers that get their
    keys (with the kernel's own auto-repeat), an exclusive grab, and the build under test running as nobody."""
    with Remote.ab_shutter3() as shutter:
        for device in shutter.devices:
            sysfs = Path("/sys/class/input") / str(device.sysname)
            described = [
                (sysfs / item).read_text().strip() for item in ("name", "id/bustype", "id/vendor", "id/product")
            ]
            checks.equal(f"{device.name}: sysfs", described, [device.name, "0005", "2717", "0040"])
        consumer = shutter.consumer
        with Reader(consumer.node) as first, Reader(consumer.node) as second:
            consumer.down("KEY_VOLUMEUP")
            got = first.wait(2, WAIT)  # the down and the first repeat
            consumer.up("KEY_VOLUMEUP")
            got += first.wait(1, WAIT, repeats=False)  # the up, after any further repeats
            values = [event.value for event in got if event.key == "KEY_VOLUMEUP"]
            checks.check("a reader gets down, the kernel's repeats, up", values[:2] == [1, 2] and values[-1] == 0, got)
            second.pending()
            first.grab()
            checks.check("a second grab is refused", second.grab_is_held())
            consumer.press("KEY_VOLUMEDOWN")
            got = [(event.key, event.value) for event in first.wait(2, WAIT)]
            checks.equal("the grabbing reader gets the keys", got, [("KEY_VOLUMEDOWN", 1), ("KEY_VOLUMEDOWN", 0)])
            checks.equal("the other reader gets none", second.pending(), [])
    version = Account("nobody", "rig").run([str(binary), "--version"])
    checks.check(
        "the build under test runs as nobody", version.returncode == 0 and version.stdout[:1].isdigit(), version
    )


class InputDaemonScenarios:
    """One daemon with `source = "input"` from its config file, run as nobody, with no audio server anywhere
    in the guest, and the remotes of every scenario: each scenario is a method, run in the order of `run`."""

    def __init__(self, checks: Checks, binary: Path) -> None:
        self.checks, self.binary = checks, binary
        self.user = Account("nobody", "input")
        checks.info(f"the daemon runs as {self.user.user} (uid {self.user.uid})")
        self.user.write_config(
            'source = "input"\n'
            f'devices = ["{SHUTTER}", "{PRESENTER_IDS}", "{CLICKER_LINK}", "{SLOW}"]\n'
            'keys = ["KEY_ENTER", "KEY_PAGEUP"]\n'
            'log-level = "debug"\n'
        )
        self.daemon = Daemon(binary, self.user, [], "the input daemon")
        # Present before the daemon starts.
        self.shutter = Remote.ab_shutter3()
        # Names a sloppy match would take: a longer one, a shorter one, one that contains it, a part with a
        # suffix the kernel never appends.
        self.decoys = [
            Device(f"{SHUTTER}0 Consumer Control", ["KEY_VOLUMEUP"], bus=BUS_BLUETOOTH, vendor=0x2717, product=0x0041),
            Device("AB Shutter Consumer Control", ["KEY_VOLUMEUP"], bus=BUS_BLUETOOTH, vendor=0x2718, product=0x0040),
            Device(f"My {SHUTTER}", ["KEY_VOLUMEUP"], bus=BUS_BLUETOOTH, vendor=0x05AC, product=0x0220),
            Device(f"{SHUTTER} Remote", ["KEY_VOLUMEUP"], bus=BUS_BLUETOOTH, vendor=0x05AC, product=0x0221),
        ]
        self.other = Device(
            "Other Keyboard", ["KEY_VOLUMEUP", "KEY_VOLUMEDOWN", "KEY_ENTER", "KEY_A"], vendor=0x046D, product=0xC31C
        )
        # Made by the scenarios, after the start.
        self.presenter = Remote.presenter()
        self.clicker = Device(
            "2.4G Wireless Clicker", ["KEY_VOLUMEUP", "KEY_MUTE", "KEY_PAGEDOWN"], vendor=0x3151, product=0x3020
        )
        self.slow = Device(SLOW, ["KEY_VOLUMEUP", "KEY_VOLUMEDOWN"], bus=BUS_BLUETOOTH, vendor=0x1234, product=0x5678)

    def run(self) -> None:
        checks = self.checks
        checks.daemon = self.daemon
        try:
            with checks.scenario("input-start"):
                self.start()
            if not checks.completed:
                return
            for scenario in (
                self.no_audio_server,
                self.found_at_start,
                self.grabbed_presses,
                self.python_client,
                self.watch,
                self.unconfigured_device,
                self.near_names,
                self.hold,
                self.double,
                self.dropped_events,
                self.made_after_start,
                self.by_id_path,
                self.readable_later,
                self.devices_command,
                self.others_gone,
                self.gone_during_hold,
                self.pause,
                self.stop,
            ):
                with checks.scenario(scenario.__name__.replace("_", "-")):
                    scenario()
        finally:
            if self.daemon.process is not None and self.daemon.process.poll() is None:
                self.daemon.stop()
            for device in self.devices:
                if device.node is not None:
                    device.destroy()

    @property
    def devices(self) -> list[Device]:
        return [*self.shutter.devices, *self.decoys, self.other, *self.presenter.devices, self.clicker, self.slow]

    def start(self) -> None:
        # Each node is given to the daemon's user as soon as it is made, as udev gives a device to the one
        # logged in; but the slow remote's, later.
        self.shutter.create().give_to(self.user.uid, self.user.gid)
        for device in [*self.decoys, self.other]:
            device.create().give_to(self.user.uid, self.user.gid)
        seconds = self.daemon.start()
        self.checks.info(f"the input daemon answered {seconds:.1f} s after it was started")
        self.subscriber = self.daemon.subscribe()
        self.checks.equal("subscribed", self.subscriber.reply.get("type"), "subscribed")

    def no_audio_server(self) -> None:
        self.checks.equal("no audio server runs in the guest", audio_servers_running(), [])
        status = self.daemon.status()
        self.checks.equal("state", status.get("state"), "guarding")
        self.checks.equal("source", status.get("source"), "input")
        self.checks.check("no sink", "sink" not in status, status)
        self.checks.check("no server", "server" not in status, status)

    def found_at_start(self) -> None:
        for device in self.shutter.devices:
            entry = self.daemon.wait_device(f"{device.name} grabbed", entry_of(device, "grabbed"))
            self.checks.equal(f"{device.name}: match", entry.get("match"), SHUTTER)
            self.checks.equal(f"{device.name}: ids", entry.get("ids"), "2717:0040")
        entries = self.daemon.device_entries()
        for match in (PRESENTER_IDS, CLICKER_LINK, SLOW):
            absent = [e for e in entries if e.get("match") == match]
            self.checks.equal(f"{match}: absent", absent, [{"match": match, "state": "absent"}])
        self.checks.equal("one entry per device found and per match without one", len(entries), 5)

    def grabbed_presses(self) -> None:
        with (
            Reader(self.shutter.consumer.node) as consumer_reader,
            Reader(self.shutter.keyboard.node) as keyboard_reader,
        ):
            press, release = tap(self.subscriber, self.shutter.consumer, "KEY_VOLUMEUP")
            expected = {
                "type": "press",
                "direction": "up",
                "key": "KEY_VOLUMEUP",
                "count": 1,
                "source": "input",
                "device": self.shutter.consumer.name,
                "path": self.shutter.consumer.node,
            }
            self.checks.equal("press", {key: press.get(key) for key in expected}, expected)
            self.checks.check(
                "press has seq and time",
                isinstance(press.get("seq"), int) and isinstance(press.get("time"), str),
                press,
            )
            expected_release = {
                "type": "release",
                "seq": press["seq"],
                "direction": "up",
                "key": "KEY_VOLUMEUP",
                "source": "input",
                "device": self.shutter.consumer.name,
                "path": self.shutter.consumer.node,
                "cause": "key-up",
            }
            self.checks.equal("release", {key: release.get(key) for key in expected_release}, expected_release)
            self.checks.check(
                "release has held_ms", isinstance(release.get("held_ms"), int) and release["held_ms"] >= 0, release
            )
            press, _ = tap(self.subscriber, self.shutter.consumer, "KEY_VOLUMEDOWN")
            self.checks.equal("volume down is direction down", press.get("direction"), "down")
            # The keyboard part, by the same name: Enter is a press because the config names it.
            press, release = tap(self.subscriber, self.shutter.keyboard, "KEY_ENTER")
            self.checks.equal(
                "KEY_ENTER is a press of that key",
                (press.get("key"), press.get("device")),
                ("KEY_ENTER", self.shutter.keyboard.name),
            )
            self.checks.check("a key that is not a volume key has no direction", "direction" not in press, press)
            self.checks.equal("KEY_ENTER's release", release.get("cause"), "key-up")
            # Every press and release above has been reported: had a reader got them, it would have them by now.
            self.checks.equal("nothing reached a second reader (consumer control)", consumer_reader.pending(), [])
            self.checks.equal("nothing reached a second reader (keyboard)", keyboard_reader.pending(), [])
            self.checks.check("the grab is held", consumer_reader.grab_is_held() and keyboard_reader.grab_is_held())
        entry = self.daemon.wait_device("the keyboard's last key", entry_of(self.shutter.keyboard))
        self.checks.equal("status: last key", entry.get("last_key"), "KEY_ENTER")

    def python_client(self) -> None:
        """The checkout's Python client, as booth software drives the daemon: status, and a device's press
        through `presses()`, replayed after the seq status gave (so that it cannot come too early)."""
        client = Client(self.daemon.socket, timeout=WAIT)
        status = client.status()
        self.checks.equal("status: source", status.get("source"), "input")
        self.shutter.keyboard.press("KEY_ENTER")
        presses = client.presses(since=status["last_seq"])
        received: list[Message] = []
        reader = threading.Thread(target=lambda: received.append(dict(next(presses))), daemon=True)
        reader.start()
        reader.join(WAIT)
        presses.close()
        expected = {"type": "press", "key": "KEY_ENTER", "source": "input", "device": self.shutter.keyboard.name}
        got = [{key: press.get(key) for key in expected} for press in received]
        self.checks.equal("presses() yields a device's press", got, [expected])

    def watch(self) -> None:
        """`volume-guard watch`, as a person follows the presses: a device's press and its release, by name."""
        subscribers = self.daemon.status()["subscribers"]
        watcher = self.user.popen([str(self.binary), "watch"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            self.daemon.wait_status(
                "watch subscribed", lambda status: status.get("subscribers") == subscribers + 1, START_WAIT
            )
            press, _ = tap(self.subscriber, self.shutter.keyboard, "KEY_ENTER")
            assert watcher.stdout is not None
            lines = read_lines(watcher.stdout, lambda line: "release" in line and f"#{press['seq']}" in line)
        finally:
            watcher.terminate()
            watcher.wait()
        ours = [line for line in lines if line.endswith(f"#{press['seq']}")]
        expected = [
            f"  KEY_ENTER  {self.shutter.keyboard.name}  #{press['seq']}",
            f"  release KEY_ENTER  {self.shutter.keyboard.name}  held ",
        ]
        self.checks.check(
            "the press and its release, by key and device",
            [any(part in line for line in ours) for part in expected] == [True, True],
            lines,
        )

    def unconfigured_device(self) -> None:
        left_alone(self.checks, self.daemon, self.subscriber, self.other, self.shutter.consumer)

    def near_names(self) -> None:
        for decoy in self.decoys:
            left_alone(self.checks, self.daemon, self.subscriber, decoy, self.shutter.consumer, f"{decoy.name}: ")

    def hold(self) -> None:
        with Reader(self.shutter.consumer.node) as reader:
            mark = self.subscriber.mark()
            stamp = self.shutter.consumer.down("KEY_VOLUMEUP")
            arrived, press = self.subscriber.wait_for_timed(
                "the press", is_press(self.shutter.consumer, "KEY_VOLUMEUP"), mark
            )
            latencies.append(arrived - stamp)
            hold = self.subscriber.wait_for("hold_start", is_gesture("hold_start", press["seq"]), mark)
            expected = {
                "direction": "up",
                "key": "KEY_VOLUMEUP",
                "presses": 1,
                "source": "input",
                "device": self.shutter.consumer.name,
            }
            self.checks.equal("hold_start", {key: hold.get(key) for key in expected}, expected)
            # The kernel has auto-repeated the held key meanwhile (the device has EV_REP): repeats are no presses.
            self.shutter.consumer.up("KEY_VOLUMEUP")
            release = self.subscriber.wait_for("the release", is_release(press["seq"]), mark)
            end = self.subscriber.wait_for("hold_end", is_gesture("hold_end", press["seq"]), mark)
            self.checks.equal("release cause", release.get("cause"), "key-up")
            self.checks.check("held at least the hold delay", release.get("held_ms", 0) >= 500, release)
            self.checks.equal("hold_end cause", end.get("cause"), "key-up")
            self.checks.equal(
                "one press for the whole hold", len(from_device(self.subscriber.since(mark), self.shutter.consumer)), 1
            )
            self.checks.equal("no double", [m for m in self.subscriber.since(mark) if m.get("gesture") == "double"], [])
            self.checks.equal("nothing reached a second reader", reader.pending(), [])

    def double(self) -> None:
        mark = self.subscriber.mark()
        self.shutter.consumer.press("KEY_VOLUMEDOWN")
        self.shutter.consumer.press("KEY_VOLUMEDOWN")
        first = self.subscriber.wait_for("the first press", is_press(self.shutter.consumer, "KEY_VOLUMEDOWN"), mark)
        second = self.subscriber.wait_for(
            "the second press", lambda m: is_press(self.shutter.consumer, "KEY_VOLUMEDOWN")(m) and m is not first, mark
        )
        double = self.subscriber.wait_for("double", is_gesture("double", second["seq"]), mark)
        self.checks.equal(
            "double",
            (double.get("direction"), double.get("key"), double.get("source")),
            ("down", "KEY_VOLUMEDOWN", "input"),
        )
        self.subscriber.wait_for("the second release", is_release(second["seq"]), mark)
        self.checks.equal("no hold", [m for m in self.subscriber.since(mark) if m.get("gesture") == "hold_start"], [])

    def dropped_events(self) -> None:
        """Two hundred taps and a down in one write, ten times what a reader's buffer holds: the kernel drops
        events for the daemon (SYN_DROPPED), which reads the keys' state again and goes on from there."""
        device = self.shutter.consumer
        mark = self.subscriber.mark()
        device.send(*[("KEY_VOLUMEDOWN", value) for _ in range(200) for value in (1, 0)], ("KEY_VOLUMEDOWN", 1))
        # Nothing else is written until the daemon has caught up: events written meanwhile could be dropped
        # too. The key stays down, so it becomes a hold once the daemon knows it is.
        hold = self.subscriber.wait_for(
            "a hold of the key left down",
            lambda m: m.get("type") == "gesture"
            and m.get("gesture") == "hold_start"
            and m.get("key") == "KEY_VOLUMEDOWN",
            mark,
        )
        device.up("KEY_VOLUMEDOWN")
        release = self.subscriber.wait_for("its release", is_release(hold["seq"]), mark)
        self.checks.equal("its release", release.get("cause"), "key-up")
        flood = self.subscriber.since(mark)
        presses = sorted(m["seq"] for m in flood if m.get("type") == "press")
        releases = sorted(m["seq"] for m in flood if m.get("type") == "release")
        # Had the daemon read them all, there would be 201 presses.
        self.checks.check("events were dropped", len(presses) < 201, f"{len(presses)} presses")
        self.checks.equal("one release for every press", releases, presses)
        press, release = tap(self.subscriber, device, "KEY_VOLUMEUP")
        self.checks.equal("a tap after it", (press.get("direction"), release.get("cause")), ("up", "key-up"))
        self.checks.equal(
            "still grabbed", self.daemon.wait_device("the consumer control", entry_of(device)).get("state"), "grabbed"
        )

    def made_after_start(self) -> None:
        # By vendor:product. The node is the user's as soon as it appears, as udev's rules make it.
        self.presenter.create().give_to(self.user.uid, self.user.gid)
        device = self.presenter.keyboard
        entry = self.daemon.wait_device("the presenter grabbed", entry_of(device, "grabbed"))
        self.checks.equal(
            "matched by vendor:product", (entry.get("match"), entry.get("ids")), (PRESENTER_IDS, PRESENTER_IDS)
        )
        with Reader(device.node) as reader:
            press, _ = tap(self.subscriber, device, "KEY_PAGEUP")
            self.checks.equal(
                "KEY_PAGEUP from the config's keys", (press.get("key"), press.get("source")), ("KEY_PAGEUP", "input")
            )
            # KEY_B is neither a volume key nor one of the config's: the grab swallows it, and it is no press.
            device.press("KEY_B")
            before = marker(self.subscriber, device, "KEY_PAGEUP")
            self.checks.equal("an unlisted key is no press", [m for m in before if m.get("key") == "KEY_B"], [])
            self.checks.equal("nothing reached a second reader", reader.pending(), [])

    def by_id_path(self) -> None:
        # udev makes the node first and its stable link a moment later (the guest has no by-id directory
        # before this one).
        self.clicker.create().give_to(self.user.uid, self.user.gid)
        self.clicker.link(CLICKER_LINK)
        entry = self.daemon.wait_device("the clicker grabbed", entry_of(self.clicker, "grabbed"))
        self.checks.equal("matched by its by-id path", entry.get("match"), CLICKER_LINK)
        press, _ = tap(self.subscriber, self.clicker, "KEY_VOLUMEUP")
        self.checks.equal("press", (press.get("direction"), press.get("device")), ("up", self.clicker.name))
        press, _ = tap(self.subscriber, self.clicker, "KEY_MUTE")
        self.checks.equal("KEY_MUTE is a mute press", press.get("direction"), "mute")

    def readable_later(self) -> None:
        # devtmpfs makes the node root's, mode 600: the daemon's user cannot open it until "udev" gives it.
        self.slow.create()
        refused = self.daemon.wait_device("the slow remote refused", entry_of(self.slow, "refused"))
        self.checks.check("refused: error", bool(refused.get("error")), refused)
        self.checks.check("refused: fix", bool(refused.get("fix")), refused)
        # Told once the node stays refused past a grace (udev gives nodes away a moment after they appear).
        told = self.daemon.wait_log(lambda line: "error" in line and SLOW in line and "/dev/input" in line)
        self.checks.check("the log tells the error, naming the device", told is not None, "no such line")
        listing = self.user.run([str(self.binary), "devices", "--json"])
        entry = {e.get("node"): e for e in json.loads(listing.stdout)}.get(self.slow.node, {})
        shown = {key: entry.get(key) for key in ("readable", "grabbed", "state")}
        self.checks.equal(
            "devices: not readable, refused", shown, {"readable": False, "grabbed": False, "state": "refused"}
        )
        self.checks.check("devices: the fix", bool(entry.get("fix")), entry)
        # Readable at last, with a key held: the daemon opens it and waits for the key to come up before it
        # grabs, so that the key is not left down for everyone else; that key is no press.
        mark = self.subscriber.mark()
        with Reader(self.slow.node) as reader:
            self.slow.down("KEY_VOLUMEUP")
            self.slow.give_to(self.user.uid, self.user.gid)
            self.daemon.wait_device("the slow remote waiting for its key", entry_of(self.slow, "waiting"))
            self.slow.up("KEY_VOLUMEUP")
            got = [(event.key, event.value) for event in reader.wait(2, WAIT, repeats=False)]
            self.checks.equal("a second reader gets the held key", got, [("KEY_VOLUMEUP", 1), ("KEY_VOLUMEUP", 0)])
            self.daemon.wait_device("the slow remote grabbed without a restart", entry_of(self.slow, "grabbed"))
        press, _ = tap(self.subscriber, self.slow, "KEY_VOLUMEDOWN")
        self.checks.equal("press", (press.get("direction"), press.get("device")), ("down", SLOW))
        self.checks.equal(
            "the key held before the grab is no press", from_device(self.subscriber.since(mark), self.slow), [press]
        )

    def devices_command(self) -> None:
        check_devices_command(
            self.checks,
            self.binary,
            self.user,
            [*self.shutter.devices, *self.presenter.devices, self.clicker, self.slow],
            [*self.decoys, self.other],
            self.clicker,
        )

    def others_gone(self) -> None:
        """Every device but the shutter goes away with no key down: no release, and each match of the config
        is absent again. It leaves the shutter alone, as in a booth, for the next scenario, whose race with
        the kernel's synthetic release shows far more often so (measured with the release build: the daemon
        read that release before the node hung up in 6 removals of 6 with the shutter alone, in none of 10
        with the ten other devices about)."""
        mark = self.subscriber.mark()
        for device in [*self.decoys, self.other, *self.presenter.devices, self.clicker, self.slow]:
            device.destroy()
        for match in (PRESENTER_IDS, CLICKER_LINK, SLOW):
            self.daemon.wait_device(f"{match} absent", lambda e: e.get("match") == match and e.get("state") == "absent")
        before = marker(self.subscriber, self.shutter.consumer, "KEY_VOLUMEDOWN")
        self.checks.equal("no release", [m for m in before if m.get("type") == "release"], [])

    def gone_during_hold(self) -> None:
        gone_during_hold(self.checks, self.daemon, self.subscriber, self.shutter, self.user)

    def pause(self) -> None:
        with Reader(self.shutter.consumer.node) as reader:
            mark = self.subscriber.mark()
            self.shutter.consumer.down("KEY_VOLUMEDOWN")
            press = self.subscriber.wait_for("the press", is_press(self.shutter.consumer, "KEY_VOLUMEDOWN"), mark)
            self.checks.equal("pause", self.daemon.request({"cmd": "pause"}).get("type"), "paused")
            release = self.subscriber.wait_for("the release", is_release(press["seq"]), mark)
            self.checks.equal("release cause", release.get("cause"), "paused")
            entry = self.daemon.wait_device("paused in status", entry_of(self.shutter.consumer))
            self.checks.equal("status: device state", entry.get("state"), "paused")
            self.checks.equal("status: state", self.daemon.status().get("state"), "paused")
            # Let go: the key's up and a new tap reach other readers now.
            self.shutter.consumer.up("KEY_VOLUMEDOWN")
            self.shutter.consumer.press("KEY_VOLUMEUP")
            got = [(event.key, event.value) for event in reader.wait(3, WAIT, repeats=False)]
            self.checks.equal(
                "a second reader gets the keys", got, [("KEY_VOLUMEDOWN", 0), ("KEY_VOLUMEUP", 1), ("KEY_VOLUMEUP", 0)]
            )
            self.checks.equal("resume", self.daemon.request({"cmd": "resume"}).get("type"), "resumed")
            self.checks.equal("status: state once resumed", self.daemon.status().get("state"), "guarding")
            states = [m["state"] for m in self.subscriber.since(mark) if m.get("type") == "state"]
            self.checks.equal("state lines", states, ["paused", "guarding"])
            self.daemon.wait_device("grabbed again", entry_of(self.shutter.consumer, "grabbed"))
            tap(self.subscriber, self.shutter.consumer, "KEY_VOLUMEUP")
            self.checks.equal("nothing reached a second reader once resumed", reader.pending(), [])

    def stop(self) -> None:
        mark = self.subscriber.mark()
        self.shutter.consumer.down("KEY_VOLUMEUP")
        press = self.subscriber.wait_for("the press", is_press(self.shutter.consumer, "KEY_VOLUMEUP"), mark)
        status = self.daemon.stop()
        self.checks.equal("exit status", status, 0)
        release = self.subscriber.wait_for("the release", is_release(press["seq"]), mark)
        self.checks.equal("release cause", release.get("cause"), "stopped")
        self.checks.check("the connection ends", self.subscriber.wait_end())
        with Reader(self.shutter.consumer.node) as reader:
            self.shutter.consumer.up("KEY_VOLUMEUP")
            self.checks.equal(
                "the device is let go",
                [(e.key, e.value) for e in reader.wait(1, WAIT, repeats=False)],
                [("KEY_VOLUMEUP", 0)],
            )


def check_devices_command(
    checks: Checks, binary: Path, user: Account, configured: list[Device], others: list[Device], linked: Device
) -> None:
    """`volume-guard devices` as the daemon's user, while the daemon runs, and `--udev-rule`."""
    listing = user.run([str(binary), "devices"])
    checks.equal("exit status", listing.returncode, 0)
    for device in [*configured, *others]:
        checks.check(
            f"lists {device.name}", device.name in listing.stdout and device.ids in listing.stdout, listing.stdout
        )

    listing = user.run([str(binary), "devices", "--json"])
    checks.equal("--json: exit status", listing.returncode, 0)
    entries = json.loads(listing.stdout)
    by_node = {entry.get("node"): entry for entry in entries}
    for device in [*configured, *others]:
        entry = by_node.get(device.node, {})
        checks.equal(f"--json: {device.name}", (entry.get("name"), entry.get("ids")), (device.name, device.ids))
        checks.equal(f"--json: {device.name} readable", entry.get("readable"), True)
        checks.equal(f"--json: {device.name} grabbed", entry.get("grabbed"), device in configured)
        checks.equal(f"--json: {device.name} configured", bool(entry.get("matches")), device in configured)
    # The guest's own keyboard (i8042) is root's: this user cannot read it.
    keyboard = [entry.get("readable") for entry in entries if entry.get("name") == "AT Translated Set 2 keyboard"]
    checks.equal("--json: a node this user cannot read", keyboard, [False])
    entry = by_node.get(linked.node, {})
    checks.equal("--json: stable paths", entry.get("stable_paths"), linked.links)

    rule = user.run([str(binary), "devices", "--udev-rule"])
    checks.equal("--udev-rule: exit status", rule.returncode, 0)
    text = rule.stdout + rule.stderr
    checks.check("--udev-rule: uaccess", 'TAG+="uaccess"' in rule.stdout, rule.stdout)
    checks.check(
        "--udev-rule: where it goes", re.search(r"/etc/udev/rules\.d/([0-6][0-9]|7[0-2])-", text) is not None, text
    )
    checks.check("--udev-rule: how to apply it", "udevadm control --reload" in text and "udevadm trigger" in text, text)
    for device in configured:
        checks.check(f"--udev-rule: gives {device.name}", udev_rule_gives(rule.stdout, device), rule.stdout)
    for device in others:
        checks.check(f"--udev-rule: not {device.name}", not udev_rule_gives(rule.stdout, device), rule.stdout)


def start_pulseaudio(user: Account) -> subprocess.Popen[bytes]:
    """A private PulseAudio of `user`'s, with the null sink guard_a, once it answers; its log beside."""
    log_path = user.root / "pulseaudio.log"
    with open(log_path, "wb") as log:
        server = user.popen(
            [
                "pulseaudio",
                "-n",
                "--daemonize=no",
                "--exit-idle-time=-1",
                "--load=module-native-protocol-unix",
                "--load=module-null-sink sink_name=guard_a",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + WAIT
    while "guard_a" not in user.run(["pactl", "list", "short", "sinks"]).stdout:
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            server.wait()
            raise Timeout(f"PulseAudio did not start in the guest:\n{log_path.read_text(errors='replace')}")
        time.sleep(0.2)
    return server


def both_daemon(checks: Checks, binary: Path) -> None:
    """`--source both`: the sink guard of a private PulseAudio, and the shutter's keys from the device."""
    user = Account("nobody", "both")
    with checks.scenario("both-audio-server"):
        server = start_pulseaudio(user)
        checks.check("PulseAudio runs in the guest", True)
    if not checks.completed:
        return
    shutter = Remote.ab_shutter3().create()
    shutter.give_to(user.uid, user.gid)
    daemon = Daemon(binary, user, ["--source", "both", "--device", SHUTTER, "--hold-delay", "300"], "the both daemon")
    checks.daemon = daemon
    try:
        with checks.scenario("both"):
            seconds = daemon.start()
            checks.info(f"the both daemon answered {seconds:.1f} s after it was started")
            subscriber = daemon.subscribe()
            # It serves its socket at once, and guards once PulseAudio answers.
            status = daemon.wait_status("guarding", lambda status: status.get("state") == "guarding")
            checks.equal("source", status.get("source"), "both")
            checks.equal("sink", status.get("sink"), "guard_a")
            checks.check("server", str(status.get("server", "")).startswith("pulseaudio"), status)
            for device in shutter.devices:
                daemon.wait_device(f"{device.name} grabbed", entry_of(device, "grabbed"))
            mark = subscriber.mark()
            press, _ = tap(subscriber, shutter.consumer, "KEY_VOLUMEUP")
            checks.equal("a device's press", (press.get("source"), press.get("direction")), ("input", "up"))
            changed = user.run(["pactl", "set-sink-volume", "guard_a", "+5%"])
            checks.equal("pactl", changed.returncode, 0)
            sink_press = subscriber.wait_for(
                "a sink press", lambda m: m.get("type") == "press" and m.get("source") == "sink", mark
            )
            checks.equal("a sink's press", (sink_press.get("direction"), sink_press.get("sink")), ("up", "guard_a"))
            presses = [m for m in subscriber.since(mark) if m.get("type") == "press"]
            checks.equal("one press each, none counted twice", [m.get("source") for m in presses], ["input", "sink"])
            # A remote gone during a hold, with the sink guarded as well.
            gone_during_hold(checks, daemon, subscriber, shutter, user)
            # --hold-delay 300: held until the hold is told, the key was down at least that long.
            mark = subscriber.mark()
            shutter.consumer.down("KEY_VOLUMEDOWN")
            press = subscriber.wait_for("the press", is_press(shutter.consumer, "KEY_VOLUMEDOWN"), mark)
            subscriber.wait_for("hold_start", is_gesture("hold_start", press["seq"]), mark)
            shutter.consumer.up("KEY_VOLUMEDOWN")
            release = subscriber.wait_for("the release", is_release(press["seq"]), mark)
            checks.check("--hold-delay: held at least 300 ms", 300 <= release.get("held_ms", 0), release)
            checks.equal("exit status", daemon.stop(), 0)
    finally:
        if daemon.process is not None and daemon.process.poll() is None:
            daemon.stop()
        server.terminate()
        server.wait()
        shutter.destroy()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", action="store_true", help="test .build/release/volume-guard")
    arguments = parser.parse_args()
    if not os.path.exists("/dev/uinput"):
        print("input-suite: no /dev/uinput: run this in the VM, scripts/input-vm", file=sys.stderr)
        return 2
    build = "release" if arguments.release else "debug"
    binary = Path(os.environ.get("VOLUME_GUARD_BINARY") or REPOSITORY / ".build" / build / "volume-guard")
    SCRATCH.mkdir(mode=0o755)
    checks = Checks()
    binary = executable(binary)
    checks.info(f"daemon under test: {binary}")
    checks.info(f"kernel {os.uname().release}")
    with checks.scenario("rig"):
        rig(checks, binary)
    if not checks.completed:
        return checks.result()
    InputDaemonScenarios(checks, binary).run()
    both_daemon(checks, binary)
    if latencies:
        median, longest = statistics.median(latencies) * 1000, max(latencies) * 1000
        checks.info(
            f"key down to press line at a subscriber, {len(latencies)} presses: median {median:.0f} ms, "
            f"max {longest:.0f} ms (software CPU: for information only)"
        )
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
