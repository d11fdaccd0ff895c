"""`Subscription`, the client's rules for following presses across connections, fed lines directly."""

import json
import unittest

# fixtures first: it puts the checkout's package on sys.path.
import fixtures  # noqa: F401

from volume_guard._subscription import Subscription


def line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


def subscribed(last_seq: int, instance: str, **more: object) -> bytes:
    return line({"type": "subscribed", "last_seq": last_seq, "instance": instance, **more})


def press(seq: int) -> bytes:
    return line({"type": "press", "seq": seq, "direction": "up", "count": 1, "sink": "s", "time": "t"})


REMOTE = {"source": "input", "device": "AB Shutter3 Keyboard", "path": "/dev/input/event2"}
"""The fields of a line from an input device."""


def device_press(seq: int, key: str = "KEY_ENTER") -> dict:
    """A press of a device's key that is not a volume key: it has no `direction`, and no `sink`."""
    return {"type": "press", "seq": seq, "key": key, "count": 1, **REMOTE, "time": "t"}


def release(seq: int, cause: str = "key-up") -> dict:
    return {"type": "release", "seq": seq, "key": "KEY_ENTER", **REMOTE, "cause": cause, "held_ms": 130, "time": "t"}


class SubscriptionTests(unittest.TestCase):
    def following(self, since: int | None = None) -> Subscription:
        return Subscription("/socket", since, gestures=False, states=False)

    def test_a_reconnection_resumes_after_the_last_press_of_the_same_daemon(self) -> None:
        subscription = self.following()
        subscription.receive(subscribed(0, "a"))
        subscription.receive(press(1))
        subscription.receive(press(2))
        self.assertEqual(subscription.request()["since"], 2)
        self.assertEqual(subscription.receive(subscribed(5, "a")), [])
        self.assertFalse(subscription.resubscribe)

    def test_a_new_daemon_that_counted_past_since_is_still_a_restart(self) -> None:
        subscription = self.following()
        subscription.receive(subscribed(0, "a"))
        subscription.receive(press(1))
        subscription.receive(press(2))
        # The new daemon already counted 5: its replay after 2 would miss its presses 1 and 2.
        self.assertEqual(subscription.receive(subscribed(5, "b")), [{"type": "restart", "last_seq": 5}])
        self.assertTrue(subscription.resubscribe)
        self.assertEqual(subscription.request()["since"], 0)
        self.assertEqual(subscription.receive(subscribed(5, "b")), [])
        self.assertFalse(subscription.resubscribe)

    def test_a_since_of_the_callers_own_is_a_restart_only_when_the_daemon_has_not_come_that_far(self) -> None:
        self.assertEqual(self.following(since=3).receive(subscribed(7, "a")), [])
        self.assertEqual(self.following(since=9).receive(subscribed(7, "a")), [{"type": "restart", "last_seq": 7}])

    def test_a_gap_is_told_with_the_seq_it_follows(self) -> None:
        subscription = self.following(since=2)
        self.assertEqual(
            subscription.receive(subscribed(3000, "a", gap=True)), [{"type": "gap", "since": 2, "last_seq": 3000}]
        )


class LogTests(unittest.TestCase):
    """What the client tells through logging (logger volume_guard) at info and above: a loss, and its end."""

    def following(self) -> Subscription:
        subscription = Subscription("/socket", None, gestures=False, states=False)
        with self.assertNoLogs("volume_guard", "INFO"):  # a first connection is no news
            subscription.receive(subscribed(0, "a"))
        subscription.receive(press(1))
        subscription.receive(press(2))
        return subscription

    def test_a_connection_made_again_after_a_loss_is_told_once(self) -> None:
        subscription = self.following()
        with self.assertLogs("volume_guard", "INFO") as logs:
            subscription.ended()
            # The daemon stays away a while: the outage is told already, not once per attempt.
            for _ in range(3):
                subscription.failed(ConnectionRefusedError(111, "Connection refused"))
            subscription.request()
            self.assertEqual(subscription.receive(subscribed(4, "a")), [])
        self.assertEqual(
            logs.output,
            [
                "INFO:volume_guard:the daemon at /socket closed the connection; reconnecting",
                "INFO:volume_guard:subscribed again to the daemon at /socket; resuming after seq 2",
            ],
        )
        # Told: the connections that follow are no news until the next loss.
        subscription.request()
        with self.assertNoLogs("volume_guard", "INFO"):
            subscription.receive(subscribed(4, "a"))

    def test_after_a_restart_the_connection_to_the_new_daemon_is_the_one_told(self) -> None:
        subscription = self.following()
        subscription.ended()
        subscription.request()
        with self.assertNoLogs("volume_guard", "INFO"):  # a new daemon: the client subscribes again at once
            self.assertEqual(subscription.receive(subscribed(5, "b")), [{"type": "restart", "last_seq": 5}])
            subscription.ended()
        subscription.request()
        with self.assertLogs("volume_guard", "INFO") as logs:
            subscription.receive(subscribed(5, "b"))
        self.assertEqual(
            logs.output, ["INFO:volume_guard:subscribed again to the daemon at /socket; resuming after seq 0"]
        )

    def test_a_daemon_reached_at_last_is_told(self) -> None:
        subscription = Subscription("/socket", None, gestures=False, states=False)
        with self.assertLogs("volume_guard", "INFO") as logs:
            subscription.failed(FileNotFoundError(2, "No such file or directory"))
            subscription.receive(subscribed(3, "a"))
        self.assertEqual(
            logs.output,
            [
                "WARNING:volume_guard:no volume-guard daemon answered at /socket (No such file or directory); retrying",
                "INFO:volume_guard:subscribed to the daemon at /socket",
            ],
        )


class InputDeviceTests(unittest.TestCase):
    """Lines from an input device: presses without a direction, releases, gestures with the device's fields."""

    def test_a_device_press_is_yielded_whole_and_resumed_after(self) -> None:
        subscription = Subscription("/socket", None, gestures=False, states=False)
        subscription.receive(subscribed(0, "a"))
        self.assertEqual(subscription.receive(line(device_press(1))), [device_press(1)])
        self.assertEqual(subscription.request()["since"], 1)

    def test_releases_are_yielded_with_or_without_gestures(self) -> None:
        for gestures in (True, False):
            with self.subTest(gestures=gestures):
                subscription = Subscription("/socket", None, gestures=gestures, states=False)
                subscription.receive(subscribed(0, "a"))
                for cause in ("key-up", "device-gone", "paused", "stopped"):
                    self.assertEqual(subscription.receive(line(release(1, cause))), [release(1, cause)])

    def test_a_release_leaves_the_resume_point_at_the_last_press(self) -> None:
        subscription = Subscription("/socket", None, gestures=True, states=False)
        subscription.receive(subscribed(0, "a"))
        subscription.receive(line(device_press(7, "KEY_VOLUMEUP") | {"direction": "up"}))
        subscription.receive(line(device_press(8)))
        # Press 7's key comes up after press 8: a resume after 7 would replay 8 twice.
        subscription.receive(line(release(7) | {"direction": "up", "key": "KEY_VOLUMEUP"}))
        self.assertEqual(subscription.request()["since"], 8)

    def test_a_device_gesture_keeps_the_devices_fields(self) -> None:
        subscription = Subscription("/socket", None, gestures=True, states=False)
        subscription.receive(subscribed(0, "a"))
        hold_end = {"type": "gesture", "gesture": "hold_end", "key": "KEY_ENTER", "seq": 1, "presses": 1}
        hold_end |= REMOTE | {"cause": "device-gone", "time": "t"}
        self.assertEqual(subscription.receive(line(hold_end)), [hold_end])


if __name__ == "__main__":
    unittest.main()
