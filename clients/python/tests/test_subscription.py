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
        self.assertEqual(subscription.receive(subscribed(3000, "a", gap=True)), [{"type": "gap", "since": 2, "last_seq": 3000}])



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
