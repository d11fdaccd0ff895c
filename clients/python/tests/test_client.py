"""`volume_guard.Client` against real daemons on a private PulseAudio server."""

import socket
import tempfile
import unittest
from unittest import mock
from typing import Any

# fixtures first: it puts the checkout's package on sys.path.
from fixtures import AudioServer, Collector, Daemon, eventually, of_type, seqs

from volume_guard import Client, DaemonUnavailable, VolumeGuardError

server: AudioServer


def setUpModule() -> None:
    global server
    server = AudioServer()


def tearDownModule() -> None:
    server.stop()


class DaemonTestCase(unittest.TestCase):
    """Each test has a daemon of its own, so that seqs start from 1."""

    arguments: tuple[str, ...] = ()

    def setUp(self) -> None:
        self.daemon = Daemon(server, *self.arguments)
        self.addCleanup(self.daemon.close)
        self.client = Client(self.daemon.socket_path)

    def follow(self, **options: Any) -> Collector:
        """Iterates `presses(**options)` in the background until the test ends; returns once the
        daemon has registered the subscription, so that a press made next is seen live."""
        subscribers = self.daemon.raw({"cmd": "status"})["subscribers"]
        stream = self.client.presses(**options)
        collector = Collector(stream)
        self.addCleanup(stream.close)
        self.assertTrue(eventually(lambda: self.daemon.raw({"cmd": "status"})["subscribers"] > subscribers))
        return collector


class RequestTests(DaemonTestCase):
    def test_status_pause_and_resume_return_the_replies(self) -> None:
        status = self.client.status()
        self.assertEqual(status["type"], "status")
        self.assertEqual(status["state"], "guarding")
        self.assertEqual(status.get("sink"), "guard_a")
        self.assertEqual(status["last_seq"], 0)
        self.assertEqual(status.get("source"), "sink")
        self.assertNotIn("devices", status)

        self.assertEqual(self.client.pause()["type"], "paused")
        self.assertEqual(self.client.status()["state"], "paused")
        self.assertEqual(self.client.resume()["type"], "resumed")
        self.assertEqual(self.client.status()["state"], "guarding")

    def test_ping_and_version(self) -> None:
        self.assertEqual(self.client.ping(), {"type": "pong"})
        self.assertRegex(self.client.version()["version"], r"^\d+\.\d+\.\d+")

    def test_an_error_reply_raises_with_the_daemons_code(self) -> None:
        with self.assertRaises(VolumeGuardError) as unknown:
            self.client.request({"cmd": "dance"})
        self.assertEqual(unknown.exception.code, "unknown-command")
        self.assertIn("dance", unknown.exception.message)
        self.assertNotIsInstance(unknown.exception, DaemonUnavailable)

        with self.assertRaises(VolumeGuardError) as invalid:
            self.client.request({"cmd": "subscribe", "since": -1})
        self.assertEqual(invalid.exception.code, "invalid-field")

    def test_a_request_reports_status_counts(self) -> None:
        self.daemon.press(2)
        status = self.client.status()
        self.assertEqual(status["last_seq"], 2)
        self.assertEqual(status["presses"]["up"], 2)


class InputSourceTests(DaemonTestCase):
    """A daemon reading input devices only, none of which is present: this machine need have none."""

    # Matches no device a test machine has, so that the daemon never grabs one of its keyboards.
    arguments = ("--source", "input", "--device", "volume-guard test remote", "--device", "fffe:fffd")

    def test_status_tells_the_source_and_each_configured_device(self) -> None:
        status = self.client.status()
        self.assertEqual((status["state"], status.get("source")), ("guarding", "input"))
        self.assertNotIn("sink", status)
        self.assertEqual(
            status.get("devices"),
            [{"match": "volume-guard test remote", "state": "absent"}, {"match": "fffe:fffd", "state": "absent"}],
        )
        self.client.pause()
        self.assertEqual(self.client.status()["state"], "paused")

    def test_states_come_without_a_sink(self) -> None:
        collector = self.follow(states=True)
        self.client.pause()
        self.client.resume()
        self.assertTrue(eventually(lambda: len(of_type(collector.events, "state")) == 2), collector.events)
        paused, guarding = {"type": "state", "state": "paused"}, {"type": "state", "state": "guarding"}
        self.assertEqual(collector.events, [paused, guarding])


class UnavailableTests(unittest.TestCase):
    def test_no_daemon_raises_daemon_unavailable_naming_the_path(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            path = f"{directory}/volume-guard.sock"
            with self.assertRaises(DaemonUnavailable) as caught:
                Client(path).status()
        self.assertEqual(caught.exception.path, path)
        self.assertEqual(caught.exception.code, "daemon-unavailable")
        self.assertIn(path, str(caught.exception))
        self.assertIsInstance(caught.exception, VolumeGuardError)

    def test_a_socket_that_never_replies_times_out(self) -> None:
        with tempfile.TemporaryDirectory() as directory, socket.socket(socket.AF_UNIX) as silent:
            silent.bind(f"{directory}/silent.sock")
            silent.listen()
            with self.assertRaises(DaemonUnavailable) as caught:
                Client(f"{directory}/silent.sock", timeout=0.2).ping()
        self.assertIn("no reply within 0.2 s", caught.exception.message)


class PressesTests(DaemonTestCase):
    def test_presses_yields_each_press(self) -> None:
        collector = self.follow()
        self.daemon.press(2)
        self.assertTrue(eventually(lambda: seqs(collector.events) == [1, 2]), collector.events)
        for press in of_type(collector.events, "press"):
            self.assertEqual((press["direction"], press["count"], press["sink"]), ("up", 1, "guard_a"))
            self.assertRegex(press["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

    def test_since_replays_the_presses_after_it_then_live_ones(self) -> None:
        self.daemon.press(3)
        collector = self.follow(since=1)
        self.assertTrue(eventually(lambda: seqs(collector.events) == [2, 3]), collector.events)
        self.daemon.press()
        self.assertTrue(eventually(lambda: seqs(collector.events) == [2, 3, 4]), collector.events)
        self.assertEqual(of_type(collector.events, "gap"), [])

    def test_states_are_yielded_only_when_asked_for(self) -> None:
        with_states = self.follow(states=True)
        without = self.follow()

        def states() -> list[str]:
            return [state["state"] for state in of_type(with_states.events, "state")]

        self.client.pause()
        self.client.resume()
        # A resume reads the sink afresh, which it may report as `connecting` on the way.
        self.assertTrue(eventually(lambda: states()[-1:] == ["guarding"]), with_states.events)
        self.assertEqual(states()[0], "paused")
        # Lines reach a connection in order: once this press is there, a state line would be too.
        self.daemon.press()
        self.assertTrue(eventually(lambda: seqs(without.events) == [1]), without.events)
        self.assertEqual(of_type(without.events, "state"), [])

    def test_a_refused_subscription_raises_with_the_daemons_code(self) -> None:
        with self.assertRaises(VolumeGuardError) as caught:
            next(self.client.presses(since=-1))
        self.assertEqual(caught.exception.code, "invalid-field")

    def test_close_ends_the_iteration_from_another_thread(self) -> None:
        stream = self.client.presses()
        collector = Collector(stream)
        self.assertTrue(eventually(lambda: self.daemon.raw({"cmd": "status"})["subscribers"] == 1))
        stream.close()
        self.assertTrue(collector.join(), "the iteration did not end")
        self.assertIsNone(collector.error)
        self.assertTrue(eventually(lambda: self.daemon.raw({"cmd": "status"})["subscribers"] == 0))

    def test_a_close_while_connecting_ends_the_iteration(self) -> None:
        """A close() between the iterator's check and its connect() (a plugin disabled as it starts) ends
        it: no watcher is left reading, to take a second photo for every press."""
        stream = self.client.presses()
        connect = socket.socket.connect

        def closing_first(connection: socket.socket, address: object) -> None:
            stream.close()
            connect(connection, address)

        with mock.patch.object(socket.socket, "connect", closing_first):
            collector = Collector(stream)
            self.assertTrue(collector.join(), "the iteration did not end")
        self.assertIsNone(collector.error)
        self.assertEqual(collector.events, [])


class GestureTests(DaemonTestCase):
    # A double press with room to spare, whatever the machine's load.
    arguments = ("--double-window", "5000")

    def test_gestures_come_unless_turned_off(self) -> None:
        with_gestures = self.follow()
        without = self.follow(gestures=False)
        self.daemon.press(2)
        self.assertTrue(
            eventually(lambda: of_type(with_gestures.events, "gesture") != []), with_gestures.events
        )
        gesture = of_type(with_gestures.events, "gesture")[0]
        self.assertEqual((gesture["gesture"], gesture["direction"], gesture["seq"]), ("double", "up", 2))
        # This press was made after the gesture was told, so a gesture line would have come before it.
        self.daemon.press()
        self.assertTrue(eventually(lambda: seqs(without.events) == [1, 2, 3]), without.events)
        self.assertEqual(of_type(without.events, "gesture"), [])


class GapTests(DaemonTestCase):
    arguments = ("--history", "1")

    def test_a_gap_is_yielded_when_the_history_lost_presses(self) -> None:
        self.daemon.press(3)
        collector = self.follow(since=0, gestures=False)
        self.assertTrue(eventually(lambda: seqs(collector.events) == [3]), collector.events)
        self.assertEqual(collector.events, [{"type": "gap", "since": 0, "last_seq": 3}, collector.events[1]])


class RestartTests(unittest.TestCase):
    def test_presses_resume_across_a_daemon_restart(self) -> None:
        first = Daemon(server)
        self.addCleanup(first.close)
        stream = Client(first.socket_path).presses(gestures=False)
        self.addCleanup(stream.close)
        collector = Collector(stream)
        self.assertTrue(eventually(lambda: first.raw({"cmd": "status"})["subscribers"] == 1))
        first.press(2)
        self.assertTrue(eventually(lambda: seqs(collector.events) == [1, 2]), collector.events)

        self.assertEqual(first.stop(), 0)
        second = Daemon(server, socket_path=first.socket_path)
        self.addCleanup(second.close)
        # Made before or after the client is back: a new daemon's first press is yielded either way.
        second.press()
        self.assertTrue(eventually(lambda: seqs(collector.events) == [1, 2, 1]), collector.events)
        second.press()
        self.assertTrue(eventually(lambda: seqs(collector.events) == [1, 2, 1, 2]), collector.events)
        kinds = [event["type"] for event in collector.events]
        self.assertEqual(kinds, ["press", "press", "restart", "press", "press"])
        self.assertIsNone(collector.error)


if __name__ == "__main__":
    unittest.main()
