"""A tablet on the booth's network: the booth and the tablet are hosts of their own, network namespaces
joined by a veth pair (iproute2's `ip netns`), made here. The daemon runs in the booth's, listening on
the booth's address; headless Chromium runs in the tablet's (this process enters it with setns(2) before
it starts chromedriver, which Chromium inherits), opens the URL `volume-guard pair` printed and presses
the page's button. The press reaches a subscriber on the booth (its Unix socket, which no network
namespace hides) and runs the booth's action, once. Refusals are tried from the tablet too: no token, a
wrong one, a revoked one, a `watch` token that may not press, and guesses that end in 429.

Needs root, for the namespaces: a machine that cannot make them fails the test, nothing is skipped.
"""

import ctypes
import json
import os
import socket
import subprocess
import sys
import threading
import time
import unittest
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "clients" / "python" / "tests"))
from fixtures import WAIT, AudioServer, Daemon, binary, eventually  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# TEST-NET-2 (RFC 5737): never a real network's.
BOOTH = "198.51.100.1"
TABLET = "198.51.100.2"
PORT = 8370
CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def ip(*arguments: str) -> None:
    subprocess.run(["ip", *arguments], check=True, timeout=30)


class Network:
    """Two hosts, `booth` and `tablet`, each a network namespace with loopback up, joined by a veth pair."""

    def __init__(self) -> None:
        tag = f"{os.getpid() % 100000}"
        self.booth = f"vg-booth-{tag}"
        self.tablet = f"vg-tablet-{tag}"
        self.home = os.open("/proc/self/ns/net", os.O_RDONLY)
        ip("netns", "add", self.booth)
        ip("netns", "add", self.tablet)
        ip("link", "add", f"vgb{tag}", "type", "veth", "peer", "name", f"vgt{tag}")
        for host, link, address in ((self.booth, f"vgb{tag}", BOOTH), (self.tablet, f"vgt{tag}", TABLET)):
            ip("link", "set", link, "netns", host)
            ip("-n", host, "addr", "add", f"{address}/24", "dev", link)
            ip("-n", host, "link", "set", link, "up")
            ip("-n", host, "link", "set", "lo", "up")

    def enter(self, host: str) -> None:
        """This thread joins `host`'s network: what it starts from now on (chromedriver) runs there."""
        self._join(os.open(f"/run/netns/{host}", os.O_RDONLY), close=True)

    def leave(self) -> None:
        self._join(self.home, close=False)

    def _join(self, descriptor: int, close: bool) -> None:
        try:
            if _libc.setns(descriptor, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns")
        finally:
            if close:
                os.close(descriptor)

    def remove(self) -> None:
        self.leave()
        for host in (self.booth, self.tablet):
            subprocess.run(["ip", "netns", "del", host], timeout=30)
        os.close(self.home)


class Subscriber:
    """A program on the booth that subscribes on the control socket and keeps every press."""

    def __init__(self, socket_path: str) -> None:
        self.presses: list[dict] = []
        self.connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.connection.connect(socket_path)
        self.connection.sendall(b'{"cmd":"subscribe","gestures":false,"states":false}\n')
        self.lines = self.connection.makefile("rb")
        json.loads(self.lines.readline())  # subscribed
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.lines:
            message = json.loads(line)
            if message.get("type") == "press":
                self.presses.append(message)

    def close(self) -> None:
        self.connection.close()


class TabletTest(unittest.TestCase):
    def setUp(self) -> None:
        self.network = Network()
        self.addCleanup(self.network.remove)
        self.server = AudioServer()
        self.addCleanup(self.server.stop)
        self.actions = Path(self.server.environment["AUDIO_SERVER_DIR"]) / "photos"
        config = Path(self.server.environment["AUDIO_SERVER_DIR"]) / "config.toml"
        config.write_text(
            "[[action]]\n"
            'name = "photo"\n'
            'on = "up"\n'
            'source = "client"\n'
            f'run = ["/bin/sh", "-c", "echo $VOLUME_GUARD_SEQ $VOLUME_GUARD_CLIENT >> {self.actions}"]\n'
        )
        self.daemon = Daemon(
            self.server,
            "--http",
            f"{BOOTH}:{PORT}",
            "--config",
            str(config),
            launcher=["ip", "netns", "exec", self.network.booth],
        )
        self.addCleanup(self.daemon.close)
        self.subscriber = Subscriber(self.daemon.socket_path)
        self.addCleanup(self.subscriber.close)

    def volume_guard(self, *arguments: str) -> str:
        done = subprocess.run(
            [binary(), *arguments, "--socket", self.daemon.socket_path],
            env=self.daemon.environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout

    def pair(self, name: str, role: str) -> str:
        """Pairs `name` as `role`: the URL `pair` printed for it."""
        printed = self.volume_guard("pair", name, "--role", role)
        urls = [line for line in printed.splitlines() if line.startswith("http://")]
        self.assertEqual(len(urls), 1, printed)
        self.assertTrue(urls[0].startswith(f"http://{BOOTH}:{PORT}/?token="), urls[0])
        return urls[0]

    def browser(self) -> webdriver.Chrome:
        """Headless Chromium on the tablet."""
        self.network.enter(self.network.tablet)
        try:
            options = webdriver.ChromeOptions()
            options.binary_location = CHROMIUM
            for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-proxy-server"):
                options.add_argument(argument)
            browser = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        finally:
            self.network.leave()
        self.addCleanup(browser.quit)
        return browser

    def from_tablet(self, target: str, method: str = "GET", token: str | None = None) -> int:
        """The status of one request made on the tablet's host (curl, in its namespace)."""
        command = ["ip", "netns", "exec", self.network.tablet, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}"]
        command += ["-X", method, f"http://{BOOTH}:{PORT}{target}"]
        if token:
            command += ["-H", f"Authorization: Bearer {token}"]
        return int(subprocess.run(command, stdout=subprocess.PIPE, text=True, timeout=60, check=True).stdout)

    def wait_for(self, condition, what: str, browser: webdriver.Chrome | None = None) -> None:
        if not eventually(condition, timeout=3 * WAIT):
            page = browser.find_element(By.TAG_NAME, "body").text if browser else ""
            self.fail(f"{what}; the page shows {page!r}; the daemon's log:\n{self.daemon.log}")

    def test_the_tablets_button_presses_once_on_the_booth(self) -> None:
        url = self.pair("tablet", "trigger")
        browser = self.browser()
        browser.get(url)
        button = browser.find_element(By.ID, "press")
        self.wait_for(lambda: button.is_displayed(), "the page shows no button for a trigger client", browser)
        self.wait_for(lambda: browser.find_element(By.ID, "state").text == "guarding", "the page shows no state", browser)
        button.click()
        self.wait_for(lambda: len(self.subscriber.presses) == 1, "the booth's subscriber got no press", browser)
        press = self.subscriber.presses[0]
        self.assertEqual((press["source"], press["client"], press["direction"]), ("client", "tablet", "up"))
        self.wait_for(lambda: self.actions.exists() and self.actions.read_text() == f"{press['seq']} tablet\n", "the action did not run")
        self.wait_for(lambda: "from tablet" in browser.find_element(By.ID, "presses").text, "the page did not show its press", browser)
        self.assertEqual(browser.find_element(By.ID, "result").text, f"Pressed: #{press['seq']}")
        time.sleep(1)
        self.assertEqual(len(self.subscriber.presses), 1, "one click, one press")
        self.assertEqual(self.actions.read_text(), f"{press['seq']} tablet\n", "and one run of the action")

    def test_the_booth_refuses_what_a_token_does_not_allow(self) -> None:
        watcher = self.pair("screen", "watch").split("token=")[1]
        self.assertEqual(self.from_tablet("/status"), 401, "no token")
        self.assertEqual(self.from_tablet("/events"), 401, "no token")
        self.assertEqual(self.from_tablet("/status", token="x" * 43), 401, "a wrong token")
        self.assertEqual(self.from_tablet("/status", token=watcher), 200)
        self.assertEqual(self.from_tablet("/press?key=up", "POST", token=watcher), 403, "watch may not press")
        self.assertEqual(self.from_tablet("/pause", "POST", token=watcher), 403, "watch may not pause")
        self.assertEqual(self.subscriber.presses, [])
        statuses = [self.from_tablet(f"/status?token=guess{guess}") for guess in range(6)]
        self.assertEqual(statuses, [401, 401, 401, 401, 429, 429], "the fifth wrong token in a minute refuses the host")
        self.assertEqual(self.from_tablet("/status", token=watcher), 429, "a refused host is refused whatever it sends")
        self.assertEqual(self.daemon.log.count(f"a wrong token came from {TABLET}"), 1, self.daemon.log)

    def test_a_watch_tablet_shows_presses_and_no_button(self) -> None:
        url = self.pair("screen", "watch")
        browser = self.browser()
        browser.get(url)
        self.wait_for(lambda: browser.find_element(By.ID, "name").text == "screen", "the page did not name its client", browser)
        self.wait_for(lambda: browser.find_element(By.ID, "state").text == "guarding", "the page never connected", browser)
        self.assertFalse(browser.find_element(By.ID, "press").is_displayed(), "watch may not press: no button")
        self.daemon.press()
        self.wait_for(lambda: "from guard_a" in browser.find_element(By.ID, "presses").text, "the page did not show the press", browser)

    def test_a_revoked_tablet_is_cut_off_and_told_so(self) -> None:
        url = self.pair("tablet", "trigger")
        browser = self.browser()
        browser.get(url)
        self.wait_for(lambda: browser.find_element(By.ID, "state").text == "guarding", "the page never connected", browser)
        self.volume_guard("revoke", "tablet")
        refused = browser.find_element(By.ID, "refused")
        self.wait_for(lambda: refused.is_displayed() and "revoked" in refused.text, "the page did not say it was refused", browser)
        self.assertFalse(browser.find_element(By.ID, "press").is_displayed())
        self.assertIn("closing an event stream: its client's token was revoked client=tablet", self.daemon.log)
        browser.get(url)
        self.wait_for(lambda: "revoked" in browser.find_element(By.ID, "refused").text, "a reload of the page was not refused", browser)
        self.assertEqual(self.subscriber.presses, [])


if __name__ == "__main__":
    unittest.main()
