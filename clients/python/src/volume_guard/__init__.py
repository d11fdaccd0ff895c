"""A client for volume-guard's control socket: ask the daemon what it does, pause and resume it, and
receive every press of the volume keys (or of an input device's keys, and their releases), across
reconnections and daemon restarts.

    from volume_guard import Client

    for event in Client().presses():
        if event["type"] == "press":
            print(event.get("direction") or event.get("key"), event["seq"])

The protocol is docs/PROTOCOL.md in volume-guard's repository; every message is the dict its JSON
line makes, typed by the TypedDicts below.
"""

from ._async import AsyncClient
from ._errors import DaemonUnavailable, VolumeGuardError
from ._messages import (
    ActionReport,
    ActionRun,
    Cause,
    Direction,
    Event,
    Gap,
    Gesture,
    InputDevice,
    Level,
    Paused,
    Pong,
    Press,
    PressCounts,
    Release,
    Restart,
    Resumed,
    Source,
    State,
    Status,
    TapDelay,
    Version,
)
from ._paths import default_socket_path
from ._sync import Client, Presses

__all__ = [
    "ActionReport",
    "ActionRun",
    "AsyncClient",
    "Cause",
    "Client",
    "DaemonUnavailable",
    "Direction",
    "Event",
    "Gap",
    "Gesture",
    "InputDevice",
    "Level",
    "Paused",
    "Pong",
    "Press",
    "PressCounts",
    "Presses",
    "Release",
    "Restart",
    "Resumed",
    "Source",
    "State",
    "Status",
    "TapDelay",
    "Version",
    "VolumeGuardError",
    "default_socket_path",
]
