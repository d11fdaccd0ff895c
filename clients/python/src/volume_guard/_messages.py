"""The lines of the protocol (docs/PROTOCOL.md) as typed dicts, and how requests and replies are framed.

Messages stay the plain dicts that JSON gives: a field that a later daemon adds is there too, untyped,
and nothing is lost converting. Fields that the daemon leaves out at times are `NotRequired`. `state`
is a plain `str`, so a state that a later daemon adds type-checks too.
"""

import json
from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict

from ._errors import VolumeGuardError

Direction = Literal["up", "down", "mute"]


class Level(TypedDict):
    percent: float
    """The loudest channel, 2 decimals."""
    raw: list[int]
    """Every channel; 65536 is 100 %."""


class PressCounts(TypedDict):
    up: int
    down: int
    mute: int


class Status(TypedDict):
    """The reply to `status`."""

    type: Literal["status"]
    state: str
    """`guarding`, `paused`, `connecting` or `no-sink`."""
    sink: NotRequired[str]
    held: NotRequired[Level]
    original: NotRequired[Level]
    muted: NotRequired[bool]
    presses: PressCounts
    last_seq: int
    subscribers: int
    server: NotRequired[str]
    uptime_seconds: float


class Paused(TypedDict):
    type: Literal["paused"]


class Resumed(TypedDict):
    type: Literal["resumed"]


class Pong(TypedDict):
    type: Literal["pong"]


class Version(TypedDict):
    type: Literal["version"]
    version: str


class Press(TypedDict):
    """One press of a volume key (or several merged: `count` key steps)."""

    type: Literal["press"]
    seq: int
    direction: Direction
    count: int
    sink: str
    time: str
    """When the guard saw it: ISO 8601, UTC, milliseconds."""


class Gesture(TypedDict):
    """A hold or a double press, told beside the press lines (which stay as they are)."""

    type: Literal["gesture"]
    gesture: Literal["hold_start", "hold_end", "double"]
    direction: Direction
    seq: int
    """The press that completed it."""
    presses: int
    sink: NotRequired[str]
    time: str


class State(TypedDict):
    """The guard's state or guarded sink changed."""

    type: Literal["state"]
    state: str
    sink: NotRequired[str]


class Gap(TypedDict):
    """Made by this client, not sent by the daemon: some presses after `since` were already gone from
    the daemon's history when the client (re)subscribed, so the presses that follow start later than
    `since + 1`."""

    type: Literal["gap"]
    since: int
    last_seq: int
    """The daemon's last seq at that moment."""


class Restart(TypedDict):
    """Made by this client, not sent by the daemon: the daemon it reconnected to is a new one, so seqs
    count from 1 again. That daemon's presses follow from its first (`last_seq` of them so far)."""

    type: Literal["restart"]
    last_seq: int


Event = Press | Gesture | State | Gap | Restart
"""What `presses()` yields; tell them apart by `type`, and ignore types you do not handle."""


def encode(request: Mapping[str, object]) -> bytes:
    """A request as one line."""
    return json.dumps(request, separators=(",", ":")).encode() + b"\n"


def reply(line: bytes) -> dict[str, Any]:
    """The reply to a request; an error line raises `VolumeGuardError` with its code."""
    message: dict[str, Any] = json.loads(line)
    if message.get("type") == "error":
        raise VolumeGuardError(message["code"], message["message"])
    return message
