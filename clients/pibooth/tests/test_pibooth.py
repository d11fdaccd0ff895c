"""The plugin in the real pibooth: installed with pip on its own (the client comes inside it), pibooth (from
PyPI) loads it through its entry point and runs under Xvfb with a fake camera (fake_camera.py), against a
real daemon on a private PulseAudio server (clients/python/tests/fixtures.py). A volume-up press made with
pactl takes a picture, a volume-down press is pibooth's print button and takes none, and after the daemon is
restarted a press takes a picture again, with the client's lines for the loss and the reconnection. With one
button for both, a tap of volume up takes a picture and a hold of it prints, and with the double among the
capture button's names a guest's double press takes one picture. Xvfb,
the server or pibooth failing to start fails the test: nothing is skipped.

Run by scripts/test with the venv it makes from requirements.txt beside this file:
`VENV/bin/python -m unittest discover -s clients/pibooth/tests`. The test installs the plugin into the venv
it runs in (the one pibooth is in), from a copy of the checkout's.
"""

import importlib.metadata
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import warnings
from pathlib import Path
from typing import Any
from unittest import mock

from PIL import Image

REPOSITORY = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPOSITORY / "clients" / "python" / "tests"))
from fixtures import WAIT, AudioServer, Daemon, end, eventually  # noqa: E402

TESTS = Path(__file__).resolve().parent
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"  # for ButtonTest, which imports pygame: it greets on stdout
PIBOOTH = Path(sys.executable).parent / "pibooth"


def setUpModule() -> None:
    """`pip install ./clients/pibooth`, as the README says, offline: pibooth and setuptools are in the venv
    already. From a copy of clients/, as pip builds in the source tree; the copy keeps the plugin's symlink
    to the client (src/pibooth_volume_guard/_client), as a clone does."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    # The plugin needs no other package: not even the client, which older versions of it did (-qq: nor the
    # warning that it is not installed).
    subprocess.run(pip + ["uninstall", "-qq", "--yes", "volume-guard-client"], check=True, timeout=300)
    with tempfile.TemporaryDirectory() as directory:
        clients = Path(directory, "clients")
        shutil.copytree(
            REPOSITORY / "clients",
            clients,
            symlinks=True,
            ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests"),
        )
        # pip installs a directory anew each time.
        subprocess.run(
            pip + ["install", "--quiet", "--no-index", "--no-build-isolation", str(clients / "pibooth")],
            check=True,
            timeout=300,
        )


class Xvfb:
    """A private X server, on the first free display (Xvfb picks it and writes it to -displayfd)."""

    def __init__(self) -> None:
        read, write = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
            pass_fds=[write],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        number = b""
        with os.fdopen(read, "rb") as display:
            while not number.endswith(b"\n") and select.select([display], [], [], WAIT)[0]:
                chunk = os.read(display.fileno(), 16)
                if not chunk:
                    break
                number += chunk
        if not number.strip().isdigit():
            self.stop()
            raise AssertionError("Xvfb did not start")
        self.display = f":{number.decode().strip()}"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class PiboothTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = AudioServer()
        self.addCleanup(self.server.stop)
        self.daemon = Daemon(self.server)
        self.addCleanup(self.daemon.close)
        self.xvfb = Xvfb()
        self.addCleanup(self.xvfb.stop)
        self.directory = Path(tempfile.mkdtemp(prefix="vg-pibooth-"))
        self.addCleanup(shutil.rmtree, self.directory, ignore_errors=True)
        self.pictures = self.directory / "pictures"
        self.log_path = self.directory / "pibooth.log"
        self.pibooth: subprocess.Popen[bytes] | None = None

    def start_pibooth(self, buttons: str = "") -> None:
        """pibooth with the plugin, its buttons the plugin's defaults (up and down) unless `buttons` sets them
        (lines of the [VOLUME_GUARD] section)."""
        config = self.directory / "config"
        config.mkdir()
        # A quick sequence: one capture per picture, no layout shown, no countdown or flash, no print
        # screen, no final picture shown (pibooth/config/parser.py has every option).
        (config / "pibooth.cfg").write_text(f"""[GENERAL]
directory = {self.pictures}
plugins = {TESTS / "fake_camera.py"}

[WINDOW]
size = (640, 480)
flash = False
chosen_delay = 0
preview_delay = 1
preview_countdown = False
finish_picture_delay = 0

[PICTURE]
captures = 1

[CAMERA]
resolution = (640, 480)

[PRINTER]
printer_delay = 0

[VOLUME_GUARD]
socket = {self.daemon.socket_path}
{buttons}
""")
        environment = {key: value for key, value in os.environ.items() if not key.startswith("VOLUME_GUARD")}
        environment |= {
            "HOME": str(self.directory),
            "DISPLAY": self.xvfb.display,
            "SDL_AUDIODRIVER": "dummy",  # pibooth plays no sound, and must not look for a server
            "PYTHONUNBUFFERED": "1",
        }
        with open(self.log_path, "wb") as log:
            self.pibooth = subprocess.Popen(
                [str(PIBOOTH), "--nolog", str(config)],
                cwd=self.directory,
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.addCleanup(self.stop_pibooth)

    def stop_pibooth(self) -> int | None:
        """Interrupts pibooth as Ctrl-C does: its main loop ends through pibooth_cleanup. Its exit status."""
        assert self.pibooth is not None
        return end(self.pibooth, signal.SIGINT)

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def photos(self) -> list[Path]:
        return sorted(self.pictures.glob("*_pibooth.jpg"))

    def wait_for(self, condition, what: str, timeout: float = WAIT) -> None:
        if not eventually(lambda: condition() or self.pibooth.poll() is not None, timeout) or not condition():
            self.fail(f"{what}; pibooth's output:\n{self.log}\nthe daemon's log:\n{self.daemon.log}")

    def press(self, change: str) -> None:
        """One press (`+5%` up, `-5%` down), counted by the daemon before this returns."""
        before = self.daemon.last_seq()
        self.server.pactl("set-sink-volume", "guard_a", change)
        self.wait_for(lambda: self.daemon.last_seq() > before, f"the daemon saw no press for {change}")

    def wait_until_following(self) -> None:
        """Until pibooth waits and the plugin follows the presses: live presses only, as one made before the
        plugin is subscribed would not come."""
        self.wait_for(lambda: "volume-guard: following the presses" in self.log, "the plugin did not start", 3 * WAIT)
        self.wait_for(lambda: self.daemon.raw({"cmd": "status"})["subscribers"] == 1, "the plugin did not subscribe")
        self.wait_for(lambda: "fake camera: pibooth waits" in self.log, "pibooth did not start waiting")

    def test_a_press_takes_a_photo(self) -> None:
        self.start_pibooth()
        self.wait_until_following()
        self.assertRegex(self.log, r"Installed plugins: .*volume-guard-0\.1\.0", "not loaded by its entry point")

        # Down is the print button: pibooth sees it, and takes no picture.
        self.press("-5%")
        self.wait_for(lambda: "the print button, while waiting" in self.log, "pibooth saw no print button")
        time.sleep(2)  # were it a capture, pibooth would have started by now
        self.assertNotIn("fake camera: capture", self.log)
        self.assertEqual(self.photos(), [])

        # Up is the capture button: a picture, and pibooth waits again.
        self.press("+5%")
        self.wait_for(lambda: len(self.photos()) == 1, "no picture for a press up")
        # The file is there as pibooth starts writing it: done once pibooth waits again.
        self.wait_for(lambda: self.log.count("fake camera: pibooth waits") == 2, "pibooth did not wait again")
        self.assertEqual(self.log.count("fake camera: capture"), 1)

        # The daemon goes and a new one comes on the same socket: the plugin follows it.
        self.daemon.stop()
        self.wait_for(lambda: "closed the connection; reconnecting" in self.log, "the lost daemon was not told")
        self.daemon = Daemon(self.server, socket_path=self.daemon.socket_path)
        self.addCleanup(self.daemon.close)
        # At once: the plugin may not be back yet, and then the press comes when it is (`since`).
        self.press("+5%")
        self.wait_for(lambda: len(self.photos()) == 2, "no picture for a press up after the daemon's restart")
        # The client's own lines (logger volume_guard) are in pibooth's output, as the plugin's are.
        after = self.log.split("closed the connection; reconnecting", 1)[1]
        self.assertIn("volume-guard: the daemon was restarted", after)
        self.assertIn(f"subscribed again to the daemon at {self.daemon.socket_path}; resuming after seq 0", after)
        self.wait_for(lambda: self.log.count("fake camera: pibooth waits") == 3, "pibooth did not wait again")
        for photo in self.photos():
            with Image.open(photo) as image:
                self.assertEqual(image.format, "JPEG")
                image.load()  # the whole file, written out

        self.assertNotIn("Traceback", self.log)

        # Ctrl-C: pibooth_cleanup stops the plugin's thread, and pibooth ends by the signal, not killed.
        self.assertEqual(self.stop_pibooth(), -signal.SIGINT, self.log)
        self.assertIn("volume-guard: stopped following the presses", self.log)

    def test_one_button_a_tap_takes_a_photo_and_a_hold_prints(self) -> None:
        self.start_pibooth("capture = tap:up\nprint = hold_start:up")
        self.wait_until_following()

        # A hold: volume up stepped at a held key's pace (pactl after pactl, tens of milliseconds apart).
        for _ in range(10):
            self.server.pactl("set-sink-volume", "guard_a", "+5%")
        self.wait_for(lambda: "the print button, while waiting" in self.log, "pibooth saw no print button for a hold")
        time.sleep(2)  # were any press of the hold a capture, pibooth would have started by now
        self.assertNotIn("fake camera: capture", self.log)
        self.assertEqual(self.log.count("the print button, while waiting"), 1, "one hold, one print")

        # A tap: one press, a picture once no second press can come.
        self.press("+5%")
        self.wait_for(lambda: len(self.photos()) == 1, "no picture for a tap")
        self.wait_for(lambda: self.log.count("fake camera: pibooth waits") == 2, "pibooth did not wait again")
        self.assertEqual(self.log.count("fake camera: capture"), 1)
        self.assertEqual(self.log.count("the print button, while waiting"), 1, "a tap is no print")
        self.assertRegex(self.log, r"volume-guard: tap tap:up \(seq \d+\) is the capture button")

    def test_one_button_a_double_press_takes_one_photo(self) -> None:
        # The daemon has no [[action]]: every gesture is looked for, and two quick presses are a double.
        self.start_pibooth("capture = tap:up, double:up\nprint = hold_start:up")
        self.wait_until_following()
        self.press("+5%")
        time.sleep(0.15)
        self.press("+5%")
        self.wait_for(lambda: len(self.photos()) == 1, "no picture for a double press")
        self.wait_for(lambda: self.log.count("fake camera: pibooth waits") == 2, "pibooth did not wait again")
        time.sleep(2)  # were the double two captures, or a print, pibooth would have started it by now
        self.assertEqual(self.log.count("fake camera: capture"), 1, self.log)
        self.assertNotIn("the print button, while waiting", self.log)
        self.assertRegex(self.log, r"volume-guard: double double:up \(seq \d+\) is the capture button")


class InstallTest(unittest.TestCase):
    def test_the_plugin_brings_the_client(self) -> None:
        # Installed alone (setUpModule), the plugin has the client inside it, as files of its own.
        plugin = import_plugin()
        client = Path(plugin._client.__file__).parent
        self.assertTrue(client.is_relative_to(sys.prefix), client)  # the venv's, not the checkout's
        self.assertFalse(client.is_symlink())
        checkout = REPOSITORY / "clients" / "python" / "src" / "volume_guard"
        for source in [*checkout.glob("*.py"), checkout / "py.typed"]:
            installed = client / source.name
            self.assertFalse(installed.is_symlink(), installed)
            self.assertEqual(installed.read_bytes(), source.read_bytes(), installed)
        with self.assertRaises(importlib.metadata.PackageNotFoundError):
            importlib.metadata.version("volume-guard-client")


class Config:
    """What the plugin reads of pibooth's config: `get(section, option)`."""

    def __init__(self, **options: str) -> None:
        self.options = options

    def get(self, section: str, option: str) -> str:
        return self.options[option]


def import_plugin():
    """The plugin as installed. pygame imports setuptools' pkg_resources, which warns that it is deprecated."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "pkg_resources is deprecated", UserWarning)
        import pibooth_volume_guard
    return pibooth_volume_guard


class ButtonTest(unittest.TestCase):
    """Which events are which button, in this process: the events the plugin posts, read back from pygame's
    queue (pygame with no display)."""

    def setUp(self) -> None:
        self.plugin = import_plugin()
        import pygame
        from pibooth.booth import BUTTONDOWN

        with mock.patch.dict(os.environ, {"SDL_VIDEODRIVER": "dummy"}):
            pygame.display.init()
        self.addCleanup(pygame.quit)
        self.pygame, self.buttondown = pygame, BUTTONDOWN

    def watcher(self, capture: str, printer: str):
        """A watcher with its buttons named as pibooth.cfg names them."""
        config = Config(capture=capture, print=printer)
        names = self.plugin._option_names
        return self.plugin.Watcher("/nowhere", capture=names(config, "capture"), printer=names(config, "print"))

    def posted(self) -> list[tuple[int, int, Any]]:
        """The buttons posted so far: (capture, printer, button) each."""
        return [(event.capture, event.printer, event.button) for event in self.pygame.event.get(self.buttondown)]

    def test_names_choose_the_button(self) -> None:
        watcher = self.watcher(capture='up, "KEY_CAMERA"', printer="double:down, up")
        self.assertEqual(watcher.capture, {"up", "KEY_CAMERA"})
        self.assertEqual(watcher.printer, {"double:down", "up"})
        events = [
            {"type": "press", "seq": 1, "direction": "up", "source": "sink"},
            {"type": "press", "seq": 2, "key": "KEY_CAMERA", "source": "input"},  # a key with no direction
            {"type": "press", "seq": 3, "direction": "down", "source": "sink"},  # no button
            {"type": "gesture", "gesture": "double", "direction": "down", "seq": 4},
            {"type": "gesture", "gesture": "double", "direction": "up", "seq": 5},  # not double:down
            {"type": "release", "seq": 2, "key": "KEY_CAMERA", "cause": "key-up"},
            {"type": "restart", "last_seq": 0},
            # Named by both: the capture button alone (both at once would open pibooth's menu).
            {"type": "press", "seq": 6, "direction": "up", "key": "KEY_VOLUMEUP", "source": "input"},
        ]
        with self.assertLogs("pibooth", "INFO"):
            for event in events:
                watcher.handle(event)
        self.assertEqual(self.posted(), [(1, 0, None), (1, 0, None), (0, 1, None), (1, 0, None)])

    def test_one_button_two_jobs(self) -> None:
        watcher = self.watcher(capture="tap:up", printer="hold_start:up")
        events = [
            {"type": "press", "seq": 1, "direction": "up", "source": "input"},  # its gesture is still to come
            {"type": "gesture", "gesture": "tap", "direction": "up", "seq": 1},
            {"type": "press", "seq": 2, "direction": "up", "source": "input"},
            {"type": "gesture", "gesture": "hold_start", "direction": "up", "seq": 2},
            {"type": "gesture", "gesture": "hold_end", "direction": "up", "seq": 2},
            {"type": "gesture", "gesture": "double", "direction": "up", "seq": 4},  # neither
            {"type": "gesture", "gesture": "tap", "direction": "down", "seq": 5},  # not tap:up
        ]
        with self.assertLogs("pibooth", "INFO"):
            for event in events:
                watcher.handle(event)
        self.assertEqual(self.posted(), [(1, 0, None), (0, 1, None)])

    def test_a_quick_double_press_is_one_capture(self) -> None:
        watcher = self.plugin.Watcher("/nowhere", capture=frozenset({"up"}), printer=frozenset({"down"}), cooldown=1.0)
        pressed = [(100.0, "up"), (100.2, "up"), (100.3, "down"), (101.1, "up"), (101.2, "down")]
        with self.assertLogs("pibooth", "INFO") as logs:
            for seq, (at, direction) in enumerate(pressed, start=1):
                with mock.patch.object(self.plugin.time, "monotonic", return_value=at):
                    watcher.handle({"type": "press", "seq": seq, "direction": direction, "source": "sink"})
        self.assertEqual(
            [(capture, printer) for capture, printer, _ in self.posted()],
            [(1, 0), (0, 1), (1, 0)],
            "the second up within the cooldown, and the down after 0.9 s",
        )
        self.assertTrue(
            any("(seq 2) ignored: the capture button is cooling down" in line for line in logs.output), logs.output
        )

    def test_a_name_that_is_no_press_is_told(self) -> None:
        with self.assertLogs("pibooth", "WARNING") as logs:
            names = self.plugin._option_names(Config(capture="upp, hold_start:up, double:"), "capture")
        self.assertEqual(names, {"hold_start:up"})
        self.assertEqual(len(logs.output), 2, logs.output)
        self.assertIn("'double:'", logs.output[0])
        self.assertIn("'upp'", logs.output[1])
        self.assertEqual(self.plugin._option_names(Config(capture=""), "capture"), set())


if __name__ == "__main__":
    unittest.main()
