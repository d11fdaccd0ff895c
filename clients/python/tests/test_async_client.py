"""`volume_guard.AsyncClient` against real daemons on a private PulseAudio server."""

import asyncio
import contextlib
import tempfile
import unittest
from collections.abc import Mapping
from typing import Any

# fixtures first: it puts the checkout's package on sys.path.
from fixtures import AudioServer, Daemon, eventually_async, of_type, seqs

from volume_guard import AsyncClient, DaemonUnavailable, VolumeGuardError

server: AudioServer


def setUpModule() -> None:
    global server
    server = AudioServer()


def tearDownModule() -> None:
    server.stop()


class AsyncTestCase(unittest.IsolatedAsyncioTestCase):
    async def follow(self, client: AsyncClient, daemon: Daemon, **options: Any) -> list[Mapping[str, Any]]:
        """Iterates `presses(**options)` in a task until the test ends; the list fills as events come.
        Returns once the daemon has registered the subscription."""
        events: list[Mapping[str, Any]] = []

        async def collect() -> None:
            async with contextlib.aclosing(client.presses(**options)) as stream:
                async for event in stream:
                    events.append(event)

        task = asyncio.create_task(collect())
        self.addCleanup(task.cancel)

        def subscribed() -> bool:
            return task.done() or daemon.raw({"cmd": "status"})["subscribers"] == 1

        self.assertTrue(await eventually_async(subscribed))
        self.assertFalse(task.done(), task)
        return events


class AsyncDaemonTestCase(AsyncTestCase):
    """Each test has a daemon of its own, so that seqs start from 1."""

    arguments: tuple[str, ...] = ()

    def setUp(self) -> None:
        self.daemon = Daemon(server, *self.arguments)
        self.addCleanup(self.daemon.close)
        self.client = AsyncClient(self.daemon.socket_path)


class AsyncRequestTests(AsyncDaemonTestCase):
    async def test_status_pause_and_resume_return_the_replies(self) -> None:
        status = await self.client.status()
        self.assertEqual((status["type"], status["state"], status.get("sink")), ("status", "guarding", "guard_a"))
        self.assertEqual((await self.client.pause())["type"], "paused")
        self.assertEqual((await self.client.status())["state"], "paused")
        self.assertEqual((await self.client.resume())["type"], "resumed")
        self.assertEqual((await self.client.status())["state"], "guarding")
        self.assertEqual(await self.client.ping(), {"type": "pong"})
        self.assertRegex((await self.client.version())["version"], r"^\d+\.\d+\.\d+")

    async def test_an_error_reply_raises_with_the_daemons_code(self) -> None:
        with self.assertRaises(VolumeGuardError) as caught:
            await self.client.request({"cmd": "dance"})
        self.assertEqual(caught.exception.code, "unknown-command")
        self.assertNotIsInstance(caught.exception, DaemonUnavailable)

    async def test_no_daemon_raises_daemon_unavailable_naming_the_path(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            path = f"{directory}/volume-guard.sock"
            with self.assertRaises(DaemonUnavailable) as caught:
                await AsyncClient(path).status()
        self.assertEqual(caught.exception.path, path)
        self.assertIn(path, str(caught.exception))


class AsyncPressesTests(AsyncDaemonTestCase):
    async def test_since_replays_then_live_presses_follow(self) -> None:
        await asyncio.to_thread(self.daemon.press, 2)
        events = await self.follow(self.client, self.daemon, since=1)
        self.assertTrue(await eventually_async(lambda: seqs(events) == [2]), events)
        await asyncio.to_thread(self.daemon.press)
        self.assertTrue(await eventually_async(lambda: seqs(events) == [2, 3]), events)
        self.assertEqual(of_type(events, "press")[1]["direction"], "up")

    async def test_states_are_yielded_when_asked_for(self) -> None:
        events = await self.follow(self.client, self.daemon, states=True, gestures=False)
        await self.client.pause()
        self.assertTrue(await eventually_async(lambda: of_type(events, "state") != []), events)
        self.assertEqual(events[0], {"type": "state", "state": "paused"})


class AsyncGapTests(AsyncDaemonTestCase):
    arguments = ("--history", "1")

    async def test_a_gap_is_yielded_when_the_history_lost_presses(self) -> None:
        await asyncio.to_thread(self.daemon.press, 3)
        events = await self.follow(self.client, self.daemon, since=0, gestures=False)
        self.assertTrue(await eventually_async(lambda: seqs(events) == [3]), events)
        self.assertEqual(events[0], {"type": "gap", "since": 0, "last_seq": 3})


class AsyncRestartTests(AsyncTestCase):
    async def test_presses_resume_across_a_daemon_restart(self) -> None:
        first = await asyncio.to_thread(Daemon, server)
        self.addCleanup(first.close)
        events = await self.follow(AsyncClient(first.socket_path), first, gestures=False)
        await asyncio.to_thread(first.press, 2)
        self.assertTrue(await eventually_async(lambda: seqs(events) == [1, 2]), events)

        self.assertEqual(await asyncio.to_thread(first.stop), 0)
        second = await asyncio.to_thread(Daemon, server, socket_path=first.socket_path)
        self.addCleanup(second.close)
        await asyncio.to_thread(second.press)
        self.assertTrue(await eventually_async(lambda: seqs(events) == [1, 2, 1]), events)
        await asyncio.to_thread(second.press)
        self.assertTrue(await eventually_async(lambda: seqs(events) == [1, 2, 1, 2]), events)
        self.assertEqual([event["type"] for event in events], ["press", "press", "restart", "press", "press"])


if __name__ == "__main__":
    unittest.main()
