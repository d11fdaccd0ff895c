"""The input daemon's scenarios about what a grabbed remote's keys become: presses and their releases,
gestures, what the Python client and `volume-guard watch` show of them, and a reader buffer overrun, also
one that comes while the daemon is stopped.
"""

import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from harness import START_WAIT, WAIT, Message, Timeout
from helpers import (
    InputDaemonPart,
    entry_of,
    from_device,
    is_gesture,
    is_press,
    is_release,
    latencies,
    read_lines,
    tap,
)
from remote import Reader
from volume_guard import Client  # the checkout's, which harness puts on sys.path


class PressScenarios(InputDaemonPart):
    """The input daemon's scenarios about what the shutter's keys become."""

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

    def replay_with_releases(self) -> None:
        """A client away while a key went down and up gets the press when it resumes, and its release with
        it, so that the press is not left down: from the socket, and through the Python client."""
        before = self.daemon.status()["last_seq"]
        press, _ = tap(self.subscriber, self.shutter.consumer, "KEY_VOLUMEUP")
        back = self.daemon.subscribe({"cmd": "subscribe", "since": before})
        try:
            back.wait_for("the release, replayed", is_release(press["seq"]), 0)
            replayed = [(m.get("type"), m.get("seq")) for m in back.since(1) if m.get("seq") == press["seq"]]
        finally:
            back.close()
        expected = [("press", press["seq"]), ("release", press["seq"])]
        self.checks.equal("the socket replays the press, then its release", replayed, expected)
        presses = Client(self.daemon.socket, timeout=WAIT).presses(since=before, gestures=False)
        received: list[Message] = []

        def read() -> None:
            for event in presses:
                received.append(dict(event))
                if len(received) == 2:
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(WAIT)
        presses.close()
        self.checks.equal(
            "presses() yields the press, then its release", [(e.get("type"), e.get("seq")) for e in received], expected
        )

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

    def flood_while_stopped(self) -> None:
        """Issue #37: the daemon stopped (SIGSTOP, as a debugger or a shell's Ctrl-Z stops it) while the remote
        sends forty taps and leaves a key down, more than a reader's buffer holds, then continued (SIGCONT).
        It goes on from the keys' state, as after any overrun. Linux fails some blocking calls with EINTR
        after a stop, even without a signal handler (signal(7)), epoll_wait among them: the arm64 build,
        compiled by Swift 6.2.3, took that -1 in the thread that waits on the actions' commands for
        4,294,967,295 events and trapped (scripts/arm64-build). So an action runs first, to have that
        thread waiting."""
        device, process = self.shutter.consumer, self.daemon.process
        assert process is not None
        self.run_enter_action("the action runs")
        mark = self.subscriber.mark()
        process.send_signal(signal.SIGSTOP)
        try:
            self.wait_state("stopped", lambda state: state == "T")
            device.send(*[("KEY_VOLUMEDOWN", value) for _ in range(40) for value in (1, 0)], ("KEY_VOLUMEUP", 1))
            # Its timers come due meanwhile (the hold delay, 0.5 s, among them), and the kernel repeats the key.
            time.sleep(2)
        finally:
            process.send_signal(signal.SIGCONT)
        try:
            hold = self.subscriber.wait_for(
                "a hold of the key left down", is_gesture_of("hold_start", "KEY_VOLUMEUP"), mark
            )
        except Timeout:
            hold = None  # the connection ended, or no hold came: the checks below say which
        try:
            status = process.wait(WAIT if hold is None else 0.1)
        except subprocess.TimeoutExpired:
            status = None
        # Its exit status otherwise: -5 for SIGTRAP, a Swift runtime trap on aarch64 (SIGILL on x86_64).
        if not self.checks.equal("the daemon runs on", status, None) or hold is None:
            raise Timeout(f"no hold of the key left down came; lines since the stop: {self.subscriber.since(mark)}")
        self.checks.equal("it answers status", self.daemon.status().get("state"), "guarding")
        presses = [m for m in self.subscriber.since(mark) if m.get("type") == "press"]
        released = {m["seq"] for m in self.subscriber.since(mark) if m.get("type") == "release"}
        self.checks.info(f"{len(presses)} presses from the forty taps and the key left down")
        self.checks.check("events were dropped (all read, they make 41 presses)", len(presses) < 41, presses)
        self.checks.equal(
            "no press left down but the key's that is down",
            [m.get("key") for m in presses if m["seq"] not in released],
            ["KEY_VOLUMEUP"],
        )
        self.checks.equal("one press of it", [m.get("key") for m in presses].count("KEY_VOLUMEUP"), 1)
        self.checks.equal("the hold is that press's", hold["seq"], presses[-1]["seq"])
        device.up("KEY_VOLUMEUP")
        release = self.subscriber.wait_for("its release", is_release(hold["seq"]), mark)
        self.checks.equal("its release, when it is let up", release.get("cause"), "key-up")
        self.checks.equal(
            "still grabbed", self.daemon.wait_device("the consumer control", entry_of(device)).get("state"), "grabbed"
        )
        self.run_enter_action("an action runs after it")

    def run_enter_action(self, what: str) -> None:
        """Taps the shutter's Enter and waits until status counts one more run of the action on it."""

        def runs(status: Message) -> int:
            return sum(action.get("runs", 0) for action in status.get("actions", []) if action.get("name") == "enter")

        before = runs(self.daemon.status())
        tap(self.subscriber, self.shutter.keyboard, "KEY_ENTER")
        self.daemon.wait_status(what, lambda status: runs(status) > before, START_WAIT)
        self.checks.check(what, True)

    def wait_state(self, what: str, accept: Callable[[str], bool]) -> None:
        """Until the daemon's process state (R, S; T while stopped) is one `accept` takes."""
        deadline = time.monotonic() + WAIT
        while not accept(state := Path(f"/proc/{self.daemon.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]):
            if time.monotonic() > deadline:
                raise Timeout(f"the daemon {what}: not within {WAIT:.0f} s (state {state})")
            time.sleep(0.05)


def is_gesture_of(gesture: str, key: str) -> Callable[[Message], bool]:
    return lambda m: m.get("type") == "gesture" and m.get("gesture") == gesture and m.get("key") == key
