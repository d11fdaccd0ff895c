"""examples/web/booth.html in a real browser: headless Chromium, driven by Selenium through Debian's
chromedriver, loads the page from a static server on another port, and sees each press made with pactl
on a private audio server, also after the daemon is restarted (EventSource reconnects, the page sees
another run's instance in the subscribed event and starts again from since=0, and the daemon replays
what it missed). A browser that cannot start fails the test: nothing is skipped.

Run by scripts/test as `.build/browser-venv/bin/python -m unittest discover -s Tests/Browser`.
"""

import socket
import subprocess
import sys
import time
import unittest
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "clients" / "python" / "tests"))
from fixtures import WAIT, AudioServer, Daemon, eventually, free_port  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


class BoothPageTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = AudioServer()
        self.addCleanup(self.server.stop)
        self.web_port = free_port()
        self.origin = f"http://127.0.0.1:{self.web_port}"
        self.static = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "http.server",
                str(self.web_port),
                "--bind",
                "127.0.0.1",
                "--directory",
                str(REPOSITORY / "examples" / "web"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.addCleanup(self.static.wait, WAIT)
        self.addCleanup(self.static.terminate)
        self.daemon_port = free_port()
        self.daemons: list[Daemon] = []
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
            options.add_argument(argument)
        self.browser = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        self.addCleanup(self.browser.quit)

    def start_daemon(self) -> Daemon:
        socket_path = self.daemons[0].socket_path if self.daemons else None
        daemon = Daemon(
            self.server,
            "--http",
            f"127.0.0.1:{self.daemon_port}",
            "--http-origins",
            self.origin,
            socket_path=socket_path,
        )
        self.daemons.append(daemon)
        self.addCleanup(daemon.close)
        return daemon

    def page(self, element: str) -> str:
        return str(self.browser.find_element(By.ID, element).text)

    def photo_ids(self) -> list[tuple[str, int]]:
        """The photos shown, newest first, as (instance, seq)."""
        return [
            (str(line.get_attribute("data-instance")), int(str(line.get_attribute("data-seq"))))
            for line in self.browser.find_elements(By.CSS_SELECTOR, "#photos .photo")
        ]

    def wait_for(self, condition, what: str) -> None:
        if not eventually(condition, timeout=3 * WAIT):
            self.fail(
                f"{what}; the page shows count {self.page('count')!r}, connection {self.page('connection')!r}, "
                f"photos {self.photo_ids()}; the daemon's log:\n{self.daemons[-1].log}"
            )

    def test_presses_appear_and_are_replayed_after_a_restart(self) -> None:
        first = self.start_daemon()
        static_up = eventually(lambda: _listening(self.web_port))
        self.assertTrue(static_up, "the static server did not start")
        self.browser.get(f"{self.origin}/booth.html?daemon=http://127.0.0.1:{self.daemon_port}")
        self.wait_for(lambda: self.page("connection") == "connected", "the page never connected")

        first.press(3)
        self.wait_for(lambda: self.page("count") == "3", "the page did not count 3 presses")
        instance = self.photo_ids()[0][0]
        self.assertEqual(self.photo_ids(), [(instance, seq) for seq in (3, 2, 1)])

        # Paused by a client: the page says so.
        first.raw({"cmd": "pause"})
        self.wait_for(lambda: self.page("connection") == "the daemon is paused", "the page did not show the pause")
        first.raw({"cmd": "resume"})
        self.wait_for(lambda: self.page("connection") == "connected", "the page did not show the resume")

        # The daemon restarts, and presses are made while the page is away (the browser is offline, so
        # that it cannot reconnect first). EventSource reconnects with its last id, 3, beyond the new run's
        # last seq: the subscribed event names another instance, and the page starts again from since=0.
        first.stop()
        self.wait_for(lambda: "reconnecting" in self.page("connection"), "the page did not show the lost daemon")
        self.browser.set_network_conditions(offline=True, latency=0, download_throughput=-1, upload_throughput=-1)
        second = self.start_daemon()
        second.press(2)
        time.sleep(2)
        self.assertEqual(self.page("count"), "3", "the page got presses while offline")
        self.browser.set_network_conditions(offline=False, latency=0, download_throughput=-1, upload_throughput=-1)
        self.wait_for(lambda: self.page("count") == "5", "the page did not get the presses made while it was away")
        second.press(1)
        self.wait_for(lambda: self.page("count") == "6", "the page did not get a live press after the restart")
        ids = self.photo_ids()
        self.assertEqual(len(set(ids)), 6)
        newer = ids[0][0]
        self.assertNotEqual(newer, instance)
        self.assertEqual(ids, [(newer, seq) for seq in (3, 2, 1)] + [(instance, seq) for seq in (3, 2, 1)])
        self.assertEqual(self.page("connection"), "connected")


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        time.sleep(0.05)
        return False


if __name__ == "__main__":
    unittest.main()
