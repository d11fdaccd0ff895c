"""The blocking client."""

import os
import socket
import threading
from collections.abc import Generator, Iterator, Mapping
from contextlib import suppress
from typing import Any, Self, cast

from ._errors import unavailable_on_failure, whole_line
from ._messages import Event, Paused, Pong, Resumed, Status, Version, encode, reply
from ._paths import default_socket_path
from ._subscription import Subscription


class Client:
    """A client of the daemon at `path` (default: `default_socket_path()`, as the CLI finds it).

    Each request is a connection of its own, made and closed by the call: a `Client` holds nothing
    open, and one can serve any number of threads. `timeout` bounds each request (connecting and the
    reply, in seconds; None waits for ever): a `resume` may take the daemon two seconds.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float | None = 5.0) -> None:
        self.path = default_socket_path() if path is None else os.fspath(path)
        self.timeout = timeout

    def request(self, request: Mapping[str, object]) -> dict[str, Any]:
        """Sends one request (`{"cmd": ...}`) and returns the daemon's reply.

        The methods below are this with types; it serves commands this client does not know yet.
        Raises `VolumeGuardError` with the daemon's `code` for an error reply, `DaemonUnavailable` when
        there is no reply.
        """
        with unavailable_on_failure(self.path, self.timeout):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
                connection.settimeout(self.timeout)
                connection.connect(self.path)
                connection.sendall(encode(request))
                with connection.makefile("rb") as lines:
                    line = lines.readline()
        return reply(whole_line(self.path, line))

    def status(self) -> Status:
        return cast(Status, self.request({"cmd": "status"}))

    def pause(self) -> Paused:
        """Gives the sink its level back and lets the keys act normally until `resume()`."""
        return cast(Paused, self.request({"cmd": "pause"}))

    def resume(self) -> Resumed:
        """Guards again, holding the level the sink has now."""
        return cast(Resumed, self.request({"cmd": "resume"}))

    def ping(self) -> Pong:
        return cast(Pong, self.request({"cmd": "ping"}))

    def version(self) -> Version:
        return cast(Version, self.request({"cmd": "version"}))

    def presses(self, since: int | None = None, *, gestures: bool = True, states: bool = False) -> "Presses":
        """Every press from now on (after `since`, when given, first those the daemon still has).

        Yields press dicts, release dicts (an input device's key came up: always, whatever
        `gestures` says), gesture dicts unless `gestures` is false, state dicts if `states` is true,
        and the client's own `gap` and `restart` dicts (see `Gap` and `Restart`). It never ends by
        itself: when the daemon goes away it reconnects (waiting 0.1 s, then longer, 2 s at most) and
        resumes after the last press it yielded, so none the daemon still has is lost, and each
        comes with its release if its key is up by then. The release of a press yielded before the
        connection went, and gestures, are not replayed. An error line for the subscription itself raises
        `VolumeGuardError`.
        """
        return Presses(Subscription(self.path, since, gestures=gestures, states=states), self.timeout)


class Presses(Iterator[Event]):
    """The iterator `Client.presses()` returns. `close()` ends it from any thread: a blocking
    iterator cannot be interrupted otherwise, and a watcher thread needs stopping."""

    def __init__(self, subscription: Subscription, timeout: float | None) -> None:
        self._subscription = subscription
        self._timeout = timeout
        self._closed = threading.Event()
        self._connection: socket.socket | None = None
        self._events = self._follow()

    def __next__(self) -> Event:
        return next(self._events)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    def close(self) -> None:
        """Ends the iteration: a read in progress returns at once, and no reconnection follows."""
        self._closed.set()
        if (connection := self._connection) is not None:
            with suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked reading it
        # Closes the connection now rather than whenever the iterator is collected. A thread that is
        # iterating right now refuses this (ValueError), and ends by itself as its read returns.
        with suppress(ValueError):
            self._events.close()

    def _follow(self) -> Generator[Event, None, None]:
        subscription = self._subscription
        while True:
            error: OSError | None = None
            try:
                yield from self._connection_events()
            except OSError as failure:
                error = failure
            if self._closed.is_set():
                return
            self._closed.wait(subscription.failed(error) if error is not None else subscription.ended())

    def _connection_events(self) -> Iterator[Event]:
        """Subscribes on a new connection and yields its events until it ends."""
        subscription = self._subscription
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            # Published before `_closed` is checked, while close() sets `_closed` before it reads this and
            # shuts it down. Linux keeps a shutdown made before the connection, but not every system does
            # (a socket not yet connected refuses it with ENOTCONN), so `_closed` is checked again once it
            # is made: a close() that came before that check is seen by it, and one after it shuts down a
            # connected socket, which wakes the read. Either way no read outlives a close.
            self._connection = connection
            if self._closed.is_set():
                return
            connection.settimeout(self._timeout)
            connection.connect(subscription.path)
            if self._closed.is_set():
                return
            connection.sendall(encode(subscription.request()))
            with connection.makefile("rb") as lines:
                line = lines.readline()  # the `subscribed` reply, within the timeout
                connection.settimeout(None)  # then presses come when people press keys
                while line.endswith(b"\n"):
                    yield from subscription.receive(line)
                    if subscription.resubscribe:
                        return
                    line = lines.readline()
