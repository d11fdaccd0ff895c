"""What the scenarios of both daemons share: the remotes' names their configs match, telling lines apart,
taps, and a remote gone during a hold.

A check waits for the one line it is about, picked out by what it says (type, device, key, seq), never for
the next line: the daemon also tells states, gestures and other devices' presses meanwhile.
"""

import os
import select
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from harness import WAIT, Account, Checks, Daemon, Message, Subscriber
from remote import Device, Remote

SHUTTER = "AB Shutter3"
SHUTTER_IDS = "2717:0040"
"""The shutter's ids, a second match of the shutter's: a device met by two matches is listed under the first."""
PRESENTER_IDS = "1d57:ad03"
CLICKER_LINK = "/dev/input/by-id/usb-Wireless_Clicker-event-kbd"
SLOW = "Slow Remote"


class InputDaemonPart:
    """What each part of InputDaemonScenarios works with, which that class makes: the parts are classes of
    their own so that their scenarios have a file of their own, yet run against the one daemon."""

    checks: Checks
    binary: Path
    user: Account
    daemon: Daemon
    subscriber: Subscriber
    shutter: Remote


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
