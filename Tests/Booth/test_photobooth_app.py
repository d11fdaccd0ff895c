"""examples/photobooth-app/config.toml against the real photobooth-app: a tap of volume up made with pactl
on a private audio server takes a photo in photobooth-app, once the tap is known; a second tap right after it
is dropped by the action's cooldown (or refused by photobooth-app) and takes none; a hold of the same key
makes a collage, and a tap while photobooth-app is busy with it is refused, and the daemon's log says so; and
a later tap takes a photo again. A guest's double press (two presses 150 ms apart) takes one photo and no
collage: the example has no action on a double, so its presses are two taps, and the cooldown drops the
second.

photobooth-app (PyPI) runs from the venv this test runs in, with its virtual camera (its default backend),
in a scratch directory that is both its working directory (where it keeps its config, database and media)
and its HOME (where it unpacks the virtual camera's frames, about 50 MB), on a free loopback port, with
the countdown of its photo action set to 0 through the config file it reads, ./config/config.json. The
daemon (`$VOLUME_GUARD_BINARY`, else the checkout's debug build) runs the example config unchanged, and finds
photobooth-app's address in PHOTOBOOTH_APP_URL. A program that cannot start
fails the test: nothing is skipped.

Run by scripts/test as `$venv/bin/python -m unittest discover -s Tests/Booth -p test_photobooth_app.py`,
the venv made from Tests/Booth/requirements-photobooth-app.txt.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path
from unittest import mock

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "clients" / "python" / "tests"))
from fixtures import WAIT, AudioServer, Daemon, end, eventually, free_port  # noqa: E402

CONFIG = REPOSITORY / "examples" / "photobooth-app" / "config.toml"
VENV_BIN = Path(sys.executable).parent

# What the example's actions print, and what the daemon logs when it drops a tap for an action.
TAKEN = "photobooth-app takes a photo"
COLLAGE = "photobooth-app takes a collage"
REFUSED = "photobooth-app refused: a capture is already running"
DROPPED = "tap dropped for it"  # "action still running; ..." or "action cooling down; ..."
FAILED = "action failed"

# Run in photobooth-app's working directory: its own config model, with the countdown of the first
# single-image action at 0, written where it reads it (./config/config.json).
COUNTDOWN_ZERO = """
from photobooth.appconfig import appconfig
appconfig.actions.image[0].jobcontrol.countdown_capture = 0
appconfig.persist()
"""


class PhotoboothApp:
    """photobooth-app on a free loopback port, in a scratch directory of its own."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="vg-photobooth-app-"))
        self.url = f"http://127.0.0.1:{free_port()}"
        self.log_path = self.directory / "photobooth-app.log"
        self.environment = os.environ | {"HOME": str(self.directory)}
        configured = subprocess.run(
            [str(VENV_BIN / "python"), "-c", COUNTDOWN_ZERO],
            cwd=self.directory,
            env=self.environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=120,
        )
        if configured.returncode != 0:
            shutil.rmtree(self.directory, ignore_errors=True)
            raise AssertionError(f"photobooth-app's config could not be written:\n{configured.stdout}")
        port = self.url.rsplit(":", 1)[1]
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [str(VENV_BIN / "photobooth"), "--host", "127.0.0.1", "--port", port],
                cwd=self.directory,
                env=self.environment,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        eventually(lambda: self.process.poll() is not None or self.answers(), timeout=6 * WAIT)
        if not self.answers():
            self.stop()
            raise AssertionError(f"photobooth-app did not start at {self.url}; its output:\n{self.log}")

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def answers(self) -> bool:
        """Whether its API answers (its config, which it serves to the kiosk page)."""
        try:
            with urllib.request.urlopen(f"{self.url}/api/config", timeout=5) as reply:
                return bool(reply.status == 200)
        except OSError:  # urllib's errors too
            return False

    def photos(self) -> list[str]:
        """The processed photos, the ones the kiosk page shows."""
        return sorted(path.name for path in (self.directory / "media" / "processed_full").glob("*.jpg"))

    def captures(self) -> list[str]:
        """What the camera took."""
        return sorted(path.name for path in (self.directory / "media" / "camera_original").glob("*.jpg"))

    def stop(self) -> None:
        end(self.process, signal.SIGTERM, group=True)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


class PhotoboothAppTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = AudioServer()
        self.addCleanup(self.server.stop)
        self.app = PhotoboothApp()
        self.addCleanup(self.app.close)
        with mock.patch.dict(os.environ, {"PHOTOBOOTH_APP_URL": self.app.url}):
            try:
                self.daemon = Daemon(self.server, "--config", str(CONFIG))
            except AssertionError as error:
                raise AssertionError(f"{error}\nphotobooth-app's output:\n{self.app.log}") from None
        self.addCleanup(self.daemon.close)

    def report(self, what: str) -> str:
        return (
            f"{what}\nphotos {self.app.photos()}, captures {self.app.captures()}\n"
            f"--- the daemon's log:\n{self.daemon.log}\n--- photobooth-app's output:\n{self.app.log}"
        )

    def wait_for(self, condition, what: str, timeout: float = WAIT) -> None:
        if not eventually(condition, timeout=timeout):
            self.fail(self.report(what))

    def press(self) -> int:
        """Taps volume up once; the press's seq, which its tap carries."""
        self.daemon.press()
        return self.daemon.last_seq()

    def hold(self) -> None:
        """Holds volume up: steps at a held key's pace, pactl after pactl, tens of milliseconds apart; returns
        once the daemon has told the hold's end, so that the next press is one of its own."""
        ends = self.daemon.log.count("gesture=hold_end")
        for _ in range(10):
            self.server.pactl("set-sink-volume", "guard_a", "+5%")
        self.wait_for(lambda: self.daemon.log.count("gesture=hold_end") > ends, "the daemon told no end of the hold")

    def action_lines(self, action: str) -> list[str]:
        """The messages the daemon logged for `action`, each with its metadata, but for the line that starts
        it (which quotes the whole command, and with it every message the command prints)."""
        lines = (line.partition(" ")[2] for line in self.daemon.log.splitlines() if f"action={action}" in line)
        return [line for line in lines if not line.startswith("action started")]

    def photo_lines(self) -> list[str]:
        return self.action_lines("photo")

    def outcome(self, seq: int) -> str:
        """What the photo action made of press `seq`: TAKEN, REFUSED or DROPPED, once the daemon has logged it."""
        found: list[str] = []

        def logged() -> bool:
            for line in self.photo_lines():
                if re.search(rf"\bseq={seq}\b", line):
                    if line.startswith(FAILED):
                        self.fail(self.report(f"the photo action failed on press {seq}"))
                    found.extend(kind for kind in (TAKEN, REFUSED, DROPPED) if kind in line)
            return bool(found)

        self.wait_for(logged, f"the daemon logged nothing of what the photo action made of press {seq}")
        return found[0]

    def press_until(self, wanted: str, *, retry: tuple[str, ...]) -> int:
        """Presses until the photo action's outcome is `wanted`, again while it is one of `retry`; the seq
        of the press that got it."""
        deadline = time.monotonic() + WAIT
        while (outcome := self.outcome(seq := self.press())) != wanted:
            if outcome not in retry or time.monotonic() > deadline:
                self.fail(self.report(f"press {seq}: {outcome!r}, where {wanted!r} was expected"))
            time.sleep(0.2)
        return seq

    def take_photo(self) -> int:
        """Presses until photobooth-app takes a photo (a press while it still finishes the last one is
        refused, or dropped by the cooldown)."""
        return self.press_until(TAKEN, retry=(REFUSED, DROPPED))

    def hold_until_collage(self) -> None:
        """Holds volume up until the collage action has photobooth-app take a collage (a hold while it still
        finishes the last photo is refused); no hold takes a photo."""
        photos = len(self.photo_lines())
        deadline = time.monotonic() + WAIT
        while True:
            before = len(self.action_lines("collage"))
            self.hold()
            self.wait_for(lambda: len(self.action_lines("collage")) > before, "a hold ran no collage action")
            outcome = self.action_lines("collage")[before]
            if outcome.startswith(COLLAGE):
                break
            # Refused while photobooth-app finishes the last photo, or dropped by the cooldown of the last try.
            if not (outcome.startswith(REFUSED) or "dropped for it" in outcome) or time.monotonic() > deadline:
                self.fail(self.report(f"a hold's collage: {outcome!r}"))
            time.sleep(1)
        self.assertEqual(len(self.photo_lines()), photos, self.report("a hold ran the photo action"))

    def until_accepted(self, path: str) -> None:
        """GETs photobooth-app's `path` until it answers 200, as its kiosk page's buttons would."""
        codes: list[int] = []

        def accepted() -> bool:
            try:
                with urllib.request.urlopen(f"{self.app.url}{path}", timeout=5) as reply:
                    codes.append(reply.status)
            except urllib.error.HTTPError as error:
                codes.append(error.code)
            except OSError:  # no answer at all
                codes.append(0)
            time.sleep(0.1)
            return codes[-1] == 200

        self.wait_for(accepted, f"photobooth-app did not accept {path}: {codes}")

    def test_a_press_takes_a_photo_and_one_during_a_capture_takes_none(self) -> None:
        self.assertEqual(self.app.photos(), [])
        # The first capture loads photobooth-app's background removal model: give it time.
        self.take_photo()
        self.wait_for(lambda: len(self.app.photos()) == 1, "the press took no photo", timeout=3 * WAIT)

        # Twice in a row: the second press comes within the action's cooldown, or while the first photo
        # is taken.
        self.take_photo()
        second = self.press()
        self.assertIn(self.outcome(second), (REFUSED, DROPPED), self.report(f"press {second} took a photo"))
        self.wait_for(lambda: len(self.app.photos()) == 2, "the first of two presses took no photo", timeout=3 * WAIT)

        # A hold of the same key makes a collage (which waits for its first shot to be approved), and no photo;
        # while photobooth-app is busy with it, a tap is refused, and logged as such.
        self.hold_until_collage()
        self.press_until(REFUSED, retry=(DROPPED,))
        self.until_accepted("/api/processing/abort")

        # A later press takes a photo again; only the presses that took one made a photo.
        self.take_photo()
        self.wait_for(lambda: len(self.app.photos()) == 3, "a later press took no photo", timeout=3 * WAIT)
        self.assertEqual(len(self.app.captures()), 3, self.report("the camera took another number of photos than 3"))
        taken = [line for line in self.photo_lines() if line.startswith(TAKEN)]
        self.assertEqual(len(taken), 3, self.report("the daemon did not log 3 photos taken"))

    def test_a_double_press_takes_one_photo(self) -> None:
        # The first capture loads photobooth-app's background removal model and warms its camera: a photo first.
        self.take_photo()
        self.wait_for(lambda: len(self.app.photos()) == 1, "the press took no photo", timeout=3 * WAIT)

        # Two presses 150 ms apart: two taps, the first a photo (again while photobooth-app still finishes the
        # last one, or the cooldown of the last try lasts), the second dropped, never a photo or a collage.
        deadline = time.monotonic() + WAIT
        while True:
            self.daemon.press()
            first = self.daemon.last_seq()
            time.sleep(0.15)
            self.daemon.press()
            second = self.daemon.last_seq()
            outcome = self.outcome(first)
            self.assertIn(self.outcome(second), (DROPPED, REFUSED), self.report(f"the double's second press {second}"))
            if outcome == TAKEN:
                break
            if outcome not in (REFUSED, DROPPED) or time.monotonic() > deadline:
                self.fail(self.report(f"the double's first press {first}: {outcome!r}"))
            time.sleep(1)
        self.wait_for(lambda: len(self.app.photos()) == 2, "the double press took no photo", timeout=3 * WAIT)
        time.sleep(2)  # were the second press a photo, photobooth-app would have started it by now
        self.assertEqual(len(self.app.captures()), 2, self.report("the camera took another number of photos than 2"))
        self.assertEqual(self.action_lines("collage"), [], self.report("a double press ran the collage action"))
        self.assertNotIn("gesture=double", self.daemon.log, self.report("a double was told where none is configured"))

if __name__ == "__main__":
    unittest.main()
