"""The lines of the protocol (docs/PROTOCOL.md) as typed dicts, and how requests and replies are framed.

Messages stay the plain dicts that JSON gives: a field that a later daemon adds is there too, untyped,
and nothing is lost converting. Fields that the daemon leaves out at times (or that an older daemon
does not send) are `NotRequired`. `state` is a plain `str`, so a state that a later daemon adds
type-checks too.
"""

import json
from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict

from ._errors import VolumeGuardError

Direction = Literal["up", "down", "mute"]
Source = Literal["sink", "input", "client"]
"""Where a press came from: a change of the guarded sink, a key of a grabbed input device, or a client
paired with the HTTP listener."""
Cause = Literal["key-up", "device-gone", "paused", "stopped"]
"""Why a device's key counts as up: it came up, the device vanished, the daemon paused or is stopping."""


class Level(TypedDict):
    percent: float
    """The loudest channel, 2 decimals."""
    raw: list[int]
    """Every channel; 65536 is 100 %."""


class PressCounts(TypedDict):
    up: int
    down: int
    mute: int


class InputDevice(TypedDict):
    """One entry of the status's `devices`: a device present that the configuration takes, or a
    configured match that no device present meets (then only `match` and `state`)."""

    match: str
    """The configured name, `vendor:product` or path it was taken by."""
    name: NotRequired[str]
    """The device's name, e.g. `AB Shutter3 Consumer Control`."""
    path: NotRequired[str]
    """Its node, e.g. `/dev/input/event3`."""
    ids: NotRequired[str]
    """`vendor:product`, 4 hex digits each."""
    state: str
    """`grabbed` (its keys are presses), `waiting` (open; grabbed once no key on it is down), `refused`
    (cannot be opened or grabbed now: see `error` and `fix`; it is tried again), `absent` or `paused`."""
    error: NotRequired[str]
    """Why it is `refused`, e.g. `permission denied`."""
    fix: NotRequired[str]
    """What to do about it."""
    last_key: NotRequired[str]
    """The last key read from it, e.g. `KEY_VOLUMEUP`."""


class ActionRun(TypedDict):
    """An action's last run, in the status's `actions`."""

    seq: int
    """The seq of the press that started it."""
    time: str
    """When it started: ISO 8601, UTC, milliseconds."""
    result: str
    """`running`, `exited`, `signaled`, `timed-out` or `failed` (it could not start)."""
    status: NotRequired[int]
    """The exit status, when it `exited`."""
    signal: NotRequired[int]
    """The signal's number, when it was `signaled`."""
    error: NotRequired[str]
    """Why it could not start, when it `failed`."""
    seconds: NotRequired[float]
    """How long it ran, once it ended."""


class TapDelay(TypedDict):
    """How long after the press an action on taps starts, in milliseconds, from each source it hears."""

    input: NotRequired[int]
    sink: NotRequired[int]
    release: NotRequired[bool]
    """True when on a device it waits for the key's release too: a hold is looked for on its keys."""


class ActionReport(TypedDict):
    """One entry of the status's `actions`: a configured `[[action]]`."""

    name: str
    gesture: NotRequired[Literal["tap", "hold", "double"]]
    """The gesture of its key it runs on; absent when it runs on every press."""
    tap_delay_ms: NotRequired[TapDelay]
    """For an action on taps: the wait until no gesture looked for on its keys can still claim the press."""
    runs: int
    """Its starts since the daemon started."""
    dropped: int
    """The presses it was dropped for: still running, cooling down, or too many actions running."""
    last: NotRequired[ActionRun]
    """Its last run; absent before the first."""


class Status(TypedDict):
    """The reply to `status`."""

    type: Literal["status"]
    state: str
    """`guarding`, `paused`, `connecting`, `no-sink` or `stopped`; with the `input` source only
    `guarding` or `paused` (and `stopped`)."""
    sink: NotRequired[str]
    held: NotRequired[Level]
    original: NotRequired[Level]
    muted: NotRequired[bool]
    presses: PressCounts
    last_seq: int
    subscribers: int
    server: NotRequired[str]
    uptime_seconds: float
    source: NotRequired[Literal["sink", "input", "both"]]
    """Where presses come from. With `input` the sink's fields (`sink`, `held`, ...) are absent."""
    devices: NotRequired[list[InputDevice]]
    """With the `input` or `both` source: the devices the configuration takes."""
    actions: NotRequired[list[ActionReport]]
    """With `[[action]]`s configured: each one's runs and last run."""


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
    """One press of a volume key (or several merged: `count` key steps), or of another key of an input
    device that the daemon was told to take (`key` names it, and there is no `direction`)."""

    type: Literal["press"]
    seq: int
    direction: NotRequired[Direction]
    """For the volume keys; absent for a device's other keys (KEY_ENTER, ...)."""
    key: NotRequired[str]
    """A device's key, by its kernel name: `KEY_VOLUMEUP`, `KEY_ENTER`, ... (devices only)."""
    count: int
    source: NotRequired[Source]
    sink: NotRequired[str]
    """The guarded sink, for the `sink` source."""
    device: NotRequired[str]
    """The device's name, for the `input` source: `AB Shutter3 Consumer Control`."""
    path: NotRequired[str]
    """The device's node, for the `input` source: `/dev/input/event3`."""
    client: NotRequired[str]
    """The paired client's name, for the `client` source."""
    time: str
    """When the guard saw it: ISO 8601, UTC, milliseconds."""


class Release(TypedDict):
    """A device's key is up again (devices only: a sink's presses have no ups). Replayed by `since`
    with its press, and sent with `gestures=False` too."""

    type: Literal["release"]
    seq: int
    """The seq of its press."""
    direction: NotRequired[Direction]
    key: str
    source: Literal["input"]
    device: str
    path: str
    cause: Cause
    held_ms: int
    """How long the key was down, in milliseconds."""
    time: str


class Gesture(TypedDict):
    """A hold, a double press or a tap, told beside the press lines (which stay as they are)."""

    type: Literal["gesture"]
    gesture: Literal["hold_start", "hold_end", "double", "tap"]
    direction: NotRequired[Direction]
    """As for the press: absent for a device's keys other than the volume keys."""
    key: NotRequired[str]
    seq: int
    """The press that completed it."""
    presses: int
    source: NotRequired[Source]
    sink: NotRequired[str]
    device: NotRequired[str]
    path: NotRequired[str]
    cause: NotRequired[Cause]
    """A device's `hold_end`: its release's cause."""
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


Event = Press | Release | Gesture | State | Gap | Restart
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
