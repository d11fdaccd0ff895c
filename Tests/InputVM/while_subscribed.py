"""The third daemon, `mode = "while-subscribed"` with `source = "input"`: the remote is taken only while a client
listens, however the last one leaves, a subscriber cut loose for not reading included.

A daemon of its own, with a short history, so that a stalled subscriber's queue fills after a few hundred
presses.
"""

import json
import socket
import time
from pathlib import Path

from harness import WAIT, Account, Checks, Daemon, connect
from helpers import SHUTTER, entry_of
from remote import Reader, Remote

CUT_LOOSE_WAIT = 5.0
"""Seconds the daemon has, after the last subscriber is cut loose, to let the remote go: the issue's bound on
a VM whose CPU is emulated in software."""


def while_subscribed_daemon(checks: Checks, binary: Path) -> None:
    user = Account("nobody", "while-subscribed")
    user.write_config(f'source = "input"\nmode = "while-subscribed"\nhistory = 16\ndevices = ["{SHUTTER}"]\n')
    shutter = Remote.ab_shutter3().create()
    shutter.give_to(user.uid, user.gid)
    consumer = shutter.consumer
    daemon = Daemon(binary, user, [], "the while-subscribed daemon")
    checks.daemon = daemon
    try:
        with checks.scenario("while-subscribed"):
            daemon.start()
            daemon.wait_device("the remote left alone with nobody subscribed", entry_of(consumer, "paused"))
            checks.equal("paused with nobody subscribed", daemon.status().get("state"), "paused")
            reader = daemon.subscribe()
            daemon.wait_device("a subscriber gets the remote grabbed", entry_of(consumer, "grabbed"))
            reader.close()
            daemon.wait_device("the last subscriber leaving lets it go", entry_of(consumer, "paused"))

        with checks.scenario("while-subscribed-cut-loose"):
            stalled = connect(daemon.socket)
            # A small receive buffer, so that the daemon's queue for it fills sooner.
            stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            stalled.sendall(json.dumps({"cmd": "subscribe"}).encode() + b"\n")
            daemon.wait_device("a subscriber that never reads gets it grabbed", entry_of(consumer, "grabbed"))
            taps = 0
            deadline = time.monotonic() + 4 * WAIT
            while daemon.status().get("subscribers") != 0:
                if time.monotonic() > deadline:
                    raise AssertionError(f"the stalled subscriber was not cut loose after {taps} taps")
                for _ in range(20):
                    consumer.press("KEY_VOLUMEUP")
                    taps += 1
            cut = time.monotonic()
            checks.info(f"the stalled subscriber was cut loose after at most {taps} taps")
            status = daemon.wait_status(
                "paused once the last subscriber is cut loose",
                lambda status: status.get("state") == "paused",
                timeout=CUT_LOOSE_WAIT,
            )
            entry = next(filter(entry_of(consumer), daemon.device_entries(status)), None)
            checks.equal("the remote let go", entry and entry.get("state"), "paused")
            waited = time.monotonic() - cut
            checks.check(f"paused within {CUT_LOOSE_WAIT:.0f} s", waited <= CUT_LOOSE_WAIT, waited)
            with Reader(consumer.node) as other:
                consumer.press("KEY_VOLUMEDOWN")
                got = [(event.key, event.value) for event in other.wait(2, WAIT)]
                expected = [("KEY_VOLUMEDOWN", 1), ("KEY_VOLUMEDOWN", 0)]
                checks.equal("another reader gets the remote's keys again", got, expected)
            stalled.close()
            checks.equal("exit status", daemon.stop(), 0)
    finally:
        if daemon.process is not None and daemon.process.poll() is None:
            daemon.stop()
        shutter.destroy()
