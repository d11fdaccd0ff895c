"""pibooth plugin: the presses volume-guard reports are pibooth's capture and print buttons.

volume-guard holds the sink's volume and reports each change the volume keys make as a press (or reads a
remote's keys itself). This plugin follows the daemon's presses in a thread of its own and, for each
press it is set to, posts the event pibooth's GPIO capture or print button posts. pibooth then does what
that button does in the state it is in: starts a picture while waiting, prints or forgets one on the
print screen, chooses a layout, and ignores it while busy.

Its options are the [VOLUME_GUARD] section of pibooth.cfg: see README.md beside pyproject.toml.

`_client` is volume-guard's Python client (clients/python/src/volume_guard, through a symlink in the
checkout), shipped inside this package, so that `pip install ./clients/pibooth` needs no index for it.
"""

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

import pibooth
import pygame
from pibooth.booth import BUTTONDOWN

from ._client import Client, default_socket_path

__version__ = "0.1.0"

LOGGER = logging.getLogger("pibooth")
SECTION = "VOLUME_GUARD"
DIRECTIONS = ("up", "down", "mute")
GESTURES = ("tap", "hold_start", "hold_end", "double")

_watcher: "Watcher | None" = None


@pibooth.hookimpl
def pibooth_configure(cfg: Any) -> None:
    cfg.add_option(
        SECTION,
        "socket",
        "",
        "volume-guard's socket; empty: where the volume-guard commands look ($VOLUME_GUARD_SOCKET, "
        "the daemon's config file, else $XDG_RUNTIME_DIR/volume-guard.sock)",
    )
    cfg.add_option(
        SECTION,
        "capture",
        "up",
        "Presses that are the capture button: 'up', 'down', 'mute', a device's key ('KEY_ENTER'), or a "
        "gesture ('tap', 'hold_start', 'hold_end', 'double', or one key's: 'tap:up'; one button, two jobs: "
        "capture = tap:up, print = hold_start:up) (list of quoted names accepted)",
    )
    cfg.add_option(SECTION, "print", "down", "Presses that are the print button, named as for capture")
    cfg.add_option(
        SECTION,
        "cooldown",
        1.0,
        "Seconds after a button is posted in which presses for the same button are ignored: a remote bounces, "
        "and people double-press, yet one press should take one photo (0: none)",
    )


@pibooth.hookimpl
def pibooth_startup(cfg: Any) -> None:
    global _watcher
    if _watcher is not None:  # the plugin was enabled again from the menu
        _watcher.stop()
    try:
        path = cfg.getpath(SECTION, "socket") or default_socket_path()
    except ValueError as error:  # volume-guard's own config file is not one
        LOGGER.error("volume-guard: %s; presses are not followed", error)
        return
    _watcher = Watcher(
        path, capture=_option_names(cfg, "capture"), printer=_option_names(cfg, "print"), cooldown=_cooldown(cfg)
    )
    _watcher.start()


@pibooth.hookimpl
def pibooth_cleanup() -> None:
    global _watcher
    if _watcher is not None:
        _watcher.stop()
        _watcher = None


class Watcher:
    """Follows the daemon's presses in a daemon thread, and posts pibooth's button event for each one it
    is set to. pygame.event.post may be called from any thread (pygame 2)."""

    def __init__(self, path: str, *, capture: frozenset[str], printer: frozenset[str], cooldown: float = 0.0) -> None:
        self.path = path
        self.capture = capture
        self.printer = printer
        self.cooldown = cooldown
        # When each button was last posted (time.monotonic()).
        self.posted: dict[str, float] = {}
        # The client logs a lost daemon and the subscription made again (logger volume_guard, which pibooth prints).
        self.presses = Client(path, timeout=5.0).presses()
        self.thread = threading.Thread(target=self._run, name="volume-guard", daemon=True)

    def start(self) -> None:
        LOGGER.info(
            "volume-guard: following the presses at %s (capture: %s; print: %s)",
            self.path,
            ", ".join(sorted(self.capture)) or "none",
            ", ".join(sorted(self.printer)) or "none",
        )
        self.thread.start()

    def stop(self) -> None:
        self.presses.close()  # wakes the thread's read: it ends at once
        self.thread.join(timeout=5)
        LOGGER.info("volume-guard: stopped following the presses")

    def _run(self) -> None:
        try:
            for event in self.presses:  # reconnects by itself, and resumes with `since`
                self.handle(event)
        except Exception:  # only a daemon's error reply or a bug: pibooth goes on without presses
            LOGGER.exception("volume-guard: presses are no longer followed")

    def handle(self, event: Mapping[str, Any]) -> None:
        if event["type"] == "restart":
            LOGGER.info("volume-guard: the daemon was restarted; its presses follow")
        elif event["type"] == "gap":
            LOGGER.warning("volume-guard: presses after seq %s were gone from the daemon's history", event["since"])
        names = _event_names(event)
        capture = bool(names & self.capture)
        # Never both at once: pibooth takes both buttons together for "open the settings menu".
        printer = not capture and bool(names & self.printer)
        if not (capture or printer):
            return
        button = "capture" if capture else "print"
        now = time.monotonic()
        if now - self.posted.get(button, -self.cooldown) < self.cooldown:
            LOGGER.info(
                "volume-guard: %s (seq %s) ignored: the %s button is cooling down",
                " ".join(sorted(names)),
                event["seq"],
                button,
            )
            return
        self.posted[button] = now
        LOGGER.info("volume-guard: %s (seq %s) is the %s button", " ".join(sorted(names)), event["seq"], button)
        # What pibooth's own GPIO buttons post (pibooth/booth.py); a state that has no use for it ignores it.
        try:
            pygame.event.post(pygame.event.Event(BUTTONDOWN, capture=int(capture), printer=int(printer), button=None))
        except pygame.error as error:  # pibooth is quitting
            LOGGER.warning("volume-guard: the %s button was not posted: %s", button, error)


def _option_names(cfg: Any, option: str) -> frozenset[str]:
    """An option's names, from `up`, `up, KEY_ENTER` or pibooth's quoted list `"up", "KEY_ENTER"`; a name
    that is no press is told and left out."""
    names = set()
    for name in sorted({name.strip().strip("'\"") for name in cfg.get(SECTION, option).split(",")} - {""}):
        gesture, colon, key = name.partition(":")
        if _is_key(name) or gesture in GESTURES and (not colon or _is_key(key)):
            names.add(name)
        else:
            LOGGER.warning("volume-guard: [%s] %s names %r, which is no press: it is ignored", SECTION, option, name)
    return frozenset(names)


def _cooldown(cfg: Any) -> float:
    """The cooldown option, in seconds; a value that is none is told, and the default taken."""
    try:
        return max(0.0, float(cfg.get(SECTION, "cooldown")))
    except ValueError:
        LOGGER.warning("volume-guard: [%s] cooldown must be a number of seconds: 1 is taken", SECTION)
        return 1.0


def _is_key(name: str) -> bool:
    return name in DIRECTIONS or name.startswith("KEY_")


def _event_names(event: Mapping[str, Any]) -> set[str]:
    """What an event answers to: a press its direction and its key; a gesture its name, alone and joined
    to each of those (`double`, `double:down`). Other events (releases, gaps, ...) nothing."""
    keys = {event.get("direction"), event.get("key")} - {None}
    if event["type"] == "press":
        return keys
    if event["type"] == "gesture":
        return {event["gesture"]} | {f"{event['gesture']}:{key}" for key in keys}
    return set()
