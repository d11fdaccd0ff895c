"""Following the presses across reconnections, apart from any I/O.

The blocking and the asyncio client both drive one `Subscription`: it says what to send on each
connection and what each line the daemon sends means, so the two cannot come to disagree about when to
resume, when a gap or a restart happened, or how long to wait before the next attempt.
"""

import json
import logging
from typing import Any, cast

from ._errors import DaemonUnavailable, VolumeGuardError
from ._messages import Event, Gap, Gesture, Press, Release, Restart, State

log = logging.getLogger("volume_guard")

FIRST_DELAY = 0.1
"""Seconds before the first reconnection attempt: a daemon restarted on purpose is back about then."""
LAST_DELAY = 2.0
"""The longest wait between attempts: a daemon that stays away costs one connection attempt every 2 s."""


class Subscription:
    """One `presses()` iteration's state, across all its connections."""

    def __init__(self, path: str, since: int | None, *, gestures: bool, states: bool) -> None:
        self.path = path
        self.since = since
        """The seq to resume after: the last press yielded, or the `subscribed` reply's `last_seq`.
        None until the first reply when the caller asked for live presses only."""
        self.gestures = gestures
        self.states = states
        self.instance: str | None = None
        """The daemon run `since` belongs to (the `subscribed` reply's `instance`), once one replied."""
        self.resubscribe = False
        """Set when the connection must be dropped and the subscription made again at once (a new daemon)."""
        self._delay = FIRST_DELAY
        """The wait before the next attempt: doubled by each, back to the first at a `subscribed` reply."""
        self._lost = False
        """Set when a connection was lost or could not be made, until the next `subscribed` reply, which tells it."""

    def request(self) -> dict[str, Any]:
        """The subscribe request for a new connection."""
        self.resubscribe = False
        request: dict[str, Any] = {"cmd": "subscribe", "gestures": self.gestures}
        if self.since is not None:
            request["since"] = self.since
        return request

    def receive(self, line: bytes) -> list[Event]:
        """The events a line from the daemon makes; lines of types this client does not know make none."""
        message: dict[str, Any] = json.loads(line)
        kind = message.get("type")
        if kind == "press":
            self.since = message["seq"]
            return [cast(Press, message)]
        if kind == "release":
            # Its seq is its press's, an earlier one than the last press at times: `since` stays.
            return [cast(Release, message)]
        if kind == "gesture":
            return [cast(Gesture, message)]
        if kind == "state":
            return [cast(State, message)] if self.states else []
        if kind == "subscribed":
            return self._subscribed(message["last_seq"], message["instance"], message.get("gap", False))
        if kind == "error":
            if message["code"] != "too-slow":
                raise VolumeGuardError(message["code"], message["message"])
            # The daemon cut us loose and closes the connection; the next one resumes with `since`.
            log.warning("the daemon at %s dropped this client for reading too slowly; resuming", self.path)
        return []

    def _subscribed(self, last_seq: int, instance: str, gap: bool) -> list[Event]:
        self._delay = FIRST_DELAY
        # Seqs count from 1 in each run of the daemon. A run seen before tells a restart by its instance;
        # a `since` the caller gave, of no run seen here, only by a `last_seq` lower than it.
        seen, self.instance = self.instance, instance
        if self.since is not None and (instance != seen if seen is not None else last_seq < self.since):
            # A new daemon: the replay that follows is of the wrong presses; its own are wanted from its first.
            log.debug("the daemon at %s is a new one; replaying its presses from the first", self.path)
            self.since, self.resubscribe = 0, True
            return [Restart(type="restart", last_seq=last_seq)]
        events: list[Event] = []
        if gap and self.since is not None:
            events.append(Gap(type="gap", since=self.since, last_seq=last_seq))
        if self.since is None:
            self.since = last_seq
        if self._lost:  # the loss was told: so is its end, once
            self._lost = False
            if seen is None:  # no connection was ever made: this is the first
                log.info("subscribed to the daemon at %s", self.path)
            else:
                log.info("subscribed again to the daemon at %s; resuming after seq %s", self.path, self.since)
        return events

    def ended(self) -> float:
        """The connection ended; the seconds to wait before the next one."""
        if not self.resubscribe:  # else the daemon is a new one, subscribed to at once: no loss to tell
            log.info("the daemon at %s closed the connection; reconnecting", self.path)
            self._lost = True
        return self._next_delay()

    def failed(self, error: OSError) -> float:
        """A connection could not be made or broke; the seconds to wait before the next attempt.

        Only the first failure in a row is a warning: one line per outage, not one every 2 s.
        """
        report = log.warning if self._delay == FIRST_DELAY else log.debug
        report("%s; retrying", DaemonUnavailable(self.path, error).message)
        self._lost = True
        return self._next_delay()

    def _next_delay(self) -> float:
        """From FIRST_DELAY, doubling up to LAST_DELAY: never a busy loop, and never long to wait."""
        delay = self._delay
        self._delay = min(delay * 2, LAST_DELAY)
        return delay
