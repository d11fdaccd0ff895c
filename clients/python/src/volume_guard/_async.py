"""The asyncio client: `Client`'s twin, with the same rules, for programs that run an event loop."""

import asyncio
import os
from collections.abc import AsyncGenerator, Mapping
from typing import Any, cast

from ._errors import unavailable_on_failure, whole_line
from ._messages import Event, Paused, Pong, Resumed, Status, Version, encode, reply
from ._paths import default_socket_path
from ._subscription import Subscription


class AsyncClient:
    """A client of the daemon at `path` for asyncio; see `Client`, which it mirrors method for method."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float | None = 5.0) -> None:
        self.path = default_socket_path() if path is None else os.fspath(path)
        self.timeout = timeout

    async def request(self, request: Mapping[str, object]) -> dict[str, Any]:
        """Sends one request and returns the reply; raises as `Client.request` does."""
        with unavailable_on_failure(self.path, self.timeout):
            async with asyncio.timeout(self.timeout):
                reader, writer = await asyncio.open_unix_connection(self.path)
                try:
                    writer.write(encode(request))
                    await writer.drain()
                    line = await reader.readline()
                finally:
                    writer.close()
        return reply(whole_line(self.path, line))

    async def status(self) -> Status:
        return cast(Status, await self.request({"cmd": "status"}))

    async def pause(self) -> Paused:
        """Gives the sink its level back and lets the keys act normally until `resume()`."""
        return cast(Paused, await self.request({"cmd": "pause"}))

    async def resume(self) -> Resumed:
        """Guards again, holding the level the sink has now."""
        return cast(Resumed, await self.request({"cmd": "resume"}))

    async def ping(self) -> Pong:
        return cast(Pong, await self.request({"cmd": "ping"}))

    async def version(self) -> Version:
        return cast(Version, await self.request({"cmd": "version"}))

    async def presses(
        self, since: int | None = None, *, gestures: bool = True, states: bool = False
    ) -> AsyncGenerator[Event, None]:
        """What `Client.presses()` yields, for `async for`. It ends when the loop is left or the task
        cancelled; `contextlib.aclosing()` closes its connection right at a `break`."""
        subscription = Subscription(self.path, since, gestures=gestures, states=states)
        while True:
            writer = None
            error: OSError | None = None
            try:
                async with asyncio.timeout(self.timeout):
                    reader, writer = await asyncio.open_unix_connection(self.path)
                    writer.write(encode(subscription.request()))
                    await writer.drain()
                    line = await reader.readline()  # the `subscribed` reply
                while line.endswith(b"\n"):
                    for event in subscription.receive(line):
                        yield event
                    if subscription.resubscribe:
                        break
                    line = await reader.readline()
            except OSError as failure:
                error = failure
            finally:
                if writer is not None:
                    writer.close()
            await asyncio.sleep(subscription.failed(error) if error is not None else subscription.ended())
