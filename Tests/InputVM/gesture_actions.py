"""One button, several jobs, on a real kernel: the input daemon's actions on the tap, the hold and the double
press of the presenter's KEY_PAGEUP each run alone, once, for their gesture, with the gesture in their
environment; and status tells what waiting for a tap costs. Its KEY_RIGHT is a booth's button (a tap takes
a photo, a hold a collage, nothing on a double): a guest's double press of it is two taps, and one photo.
"""

import time

from harness import Message
from helpers import InputDaemonPart, is_gesture, is_press, tap
from remote import Remote

PRESENTER = "Presenter USB Receiver"
KEY = "KEY_PAGEUP"
GESTURES = ("tap", "hold", "double")
BOOTH_KEY = "KEY_RIGHT"


def actions_config() -> str:
    """The config's actions: one per gesture of the presenter's KEY_PAGEUP, each printing its gesture and
    the seq of its press into the daemon's log."""
    return "".join(
        "[[action]]\n"
        f'name = "page-{gesture}"\n'
        f'on = "{KEY}"\n'
        f'device = "{PRESENTER}"\n'
        f'gesture = "{gesture}"\n'
        "shell = true\n"
        "run = 'echo \"$VOLUME_GUARD_GESTURE of seq $VOLUME_GUARD_SEQ\"'\n"
        for gesture in GESTURES
    ) + "".join(
        "[[action]]\n"
        f'name = "booth-{gesture}"\n'
        f'on = "{BOOTH_KEY}"\n'
        f'device = "{PRESENTER}"\n'
        f'gesture = "{gesture}"\n'
        "cooldown = 2\n"
        "run = [\"true\"]\n"
        for gesture in ("tap", "hold")
    )


def runs(status: Message) -> list[int]:
    """The runs of the tap's, the hold's and the double's action, in that order."""
    counts = {action.get("name"): action.get("runs", 0) for action in status.get("actions", [])}
    return [counts.get(f"page-{gesture}", 0) for gesture in GESTURES]


class GestureActionScenarios(InputDaemonPart):
    """The scenario of the presenter's gestures; the presenter is there since made_after_start."""

    presenter: Remote

    def gesture_actions(self) -> None:
        device = self.presenter.keyboard
        # The last scenario's taps of the key are told once the double window (400 ms) has passed.
        time.sleep(1)
        status = self.daemon.status()
        entries = {action.get("name"): action for action in status.get("actions", [])}
        gestures = [entries.get(f"page-{gesture}", {}).get("gesture") for gesture in GESTURES]
        self.checks.equal("status: each action's gesture", gestures, list(GESTURES))
        delay = entries.get("page-tap", {}).get("tap_delay_ms")
        self.checks.equal("status: what a tap costs on input", delay, {"input": 400, "release": True})
        before = runs(status)
        mark = self.subscriber.mark()

        press, _ = tap(self.subscriber, device, KEY)
        self.subscriber.wait_for("the tap", is_gesture("tap", press["seq"]), mark)
        self.expect_runs("a tap runs the tap's action alone", before, [1, 0, 0], f"tap of seq {press['seq']}")

        step = self.subscriber.mark()
        device.down(KEY)
        held = self.subscriber.wait_for("the held press", is_press(device, KEY), step)
        self.subscriber.wait_for("hold_start", is_gesture("hold_start", held["seq"]), step)
        device.up(KEY)
        self.subscriber.wait_for("hold_end", is_gesture("hold_end", held["seq"]), step)
        self.expect_runs("a hold runs the hold's action alone", before, [1, 1, 0], f"hold of seq {held['seq']}")

        step = self.subscriber.mark()
        device.press(KEY)
        device.press(KEY)
        double = self.subscriber.wait_for(
            "the double", lambda m: m.get("gesture") == "double" and m.get("key") == KEY, step
        )
        self.expect_runs("a double runs the double's action alone", before, [1, 1, 1], f"double of seq {double['seq']}")

        # Past every window: no gesture made a second run, and none of its presses another's.
        time.sleep(1)
        self.checks.equal(
            "each action ran once", [now - then for now, then in zip(runs(self.daemon.status()), before)], [1, 1, 1]
        )
        lines = self.subscriber.since(mark)
        told = [m.get("gesture") for m in lines if m.get("type") == "gesture" and m.get("key") == KEY]
        self.checks.equal("the gestures told", told, ["tap", "hold_start", "hold_end", "double"])
        self.booth_double_press()

    def booth_double_press(self) -> None:
        """A double press of a key with a tap and a hold configured, no double: two taps, each at its release,
        and the tap's action runs once, the cooldown dropping the second."""
        device = self.presenter.keyboard
        status = self.daemon.status()
        entries = {action.get("name"): action for action in status.get("actions", [])}
        self.checks.equal(
            "status: a booth's tap waits for the release only",
            entries.get("booth-tap", {}).get("tap_delay_ms"),
            {"input": 0, "release": True},
        )
        before = entries.get("booth-tap", {}).get("runs", 0)
        mark = self.subscriber.mark()
        device.press(BOOTH_KEY)
        device.press(BOOTH_KEY)
        first = self.subscriber.wait_for("the first press", is_press(device, BOOTH_KEY), mark)
        second = self.subscriber.wait_for(
            "the second press", lambda m: is_press(device, BOOTH_KEY)(m) and m is not first, mark
        )
        self.subscriber.wait_for("the second tap", is_gesture("tap", second["seq"]), mark)
        time.sleep(1)  # past every window: nothing else is told
        lines = self.subscriber.since(mark)
        told = [m.get("gesture") for m in lines if m.get("type") == "gesture" and m.get("key") == BOOTH_KEY]
        self.checks.equal("a double press where no double is configured: two taps", told, ["tap", "tap"])
        entries = {action.get("name"): action for action in self.daemon.status().get("actions", [])}
        self.checks.equal("one photo for a double press", entries.get("booth-tap", {}).get("runs", 0) - before, 1)
        self.checks.equal("no collage for a double press", entries.get("booth-hold", {}).get("runs", 0), 0)

    def expect_runs(self, what: str, before: list[int], added: list[int], printed: str) -> None:
        """Waits for the runs to rise, then checks they rose by `added`, and that the action that ran printed
        `printed` (its gesture and press, from its environment) into the log."""
        self.daemon.wait_status(what, lambda status: sum(runs(status)) >= sum(before) + sum(added))
        self.checks.equal(what, [now - then for now, then in zip(runs(self.daemon.status()), before)], added)
        logged = self.daemon.wait_log(lambda line: printed in line)
        self.checks.check(f"{what}: its environment", logged is not None, printed)
