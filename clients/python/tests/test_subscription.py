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


if __name__ == "__main__":
    unittest.main()
