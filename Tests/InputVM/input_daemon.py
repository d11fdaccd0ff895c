"""The first daemon, with `source = "input"` from its config file and no audio server anywhere in the
guest: it runs most scenarios, one after the other against the same daemon, as it takes seconds to start.
The scenarios themselves are in input_presses and input_devices; its start, pause and stop are here.
"""

import time
from pathlib import Path

from gesture_actions import GestureActionScenarios, actions_config
from harness import WAIT, Account, Checks, Daemon
from helpers import CLICKER_LINK, PRESENTER_IDS, SHUTTER, SHUTTER_IDS, SLOW, entry_of, is_press, is_release, tap
from input_devices import DeviceScenarios
from input_presses import PressScenarios
from remote import BUS_BLUETOOTH, Device, Reader, Remote

AUDIO_SERVERS = ("pulseaudio", "pipewire", "pipewire-pulse", "wireplumber")
RSS_ANON_LIMIT_KB = 4096
"""The release build's anonymous memory at rest, at most: a Pi Zero 2 W has 512 MB in all. Anonymous: what
the process itself holds (heap, stacks, written data); its executable's pages are the page cache's."""


def rss_anon_kb(pid: int) -> int:
    """RssAnon of /proc/PID/status, as the guest's kernel counts it for the process itself."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/{pid}/status has no RssAnon")


def audio_servers_running() -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                name = (entry / "comm").read_text().strip()
            except OSError:
                continue
            if name in AUDIO_SERVERS:
                found.append(f"{name} (pid {entry.name})")
    return found


class InputDaemonScenarios(PressScenarios, DeviceScenarios, GestureActionScenarios):
    """One daemon with `source = "input"` from its config file, run as nobody, with no audio server anywhere
    in the guest, and the remotes of every scenario: each scenario is a method, run in the order of `run`."""

    def __init__(self, checks: Checks, binary: Path, release: bool) -> None:
        self.checks, self.binary, self.release = checks, binary, release
        self.user = Account("nobody", "input")
        checks.info(f"the daemon runs as {self.user.user} (uid {self.user.uid})")
        self.user.write_config(
            'source = "input"\n'
            f'devices = ["{SHUTTER}", "{SHUTTER_IDS}", "{PRESENTER_IDS}", "{CLICKER_LINK}", "{SLOW}"]\n'
            'keys = ["KEY_ENTER", "KEY_PAGEUP", "KEY_RIGHT"]\n'
            'log-level = "debug"\n'
            # A command on the shutter's Enter, as a booth takes a collage: its runs have a thread of their
            # own waiting in epoll_wait, which flood_while_stopped stops and continues.
            "[[action]]\n"
            'name = "enter"\n'
            'on = "KEY_ENTER"\n'
            f'device = "{SHUTTER} Keyboard"\n'
            'run = ["true"]\n'
            # One key of the presenter, three jobs, and a booth's button: gesture_actions.
            + actions_config()
        )
        self.daemon = Daemon(binary, self.user, [], "the input daemon")
        # Present before the daemon starts.
        self.shutter = Remote.ab_shutter3()
        # Names a sloppy match would take: a longer one, a shorter one, one that contains it, a part with a
        # suffix the kernel never appends.
        self.decoys = [
            Device(f"{SHUTTER}0 Consumer Control", ["KEY_VOLUMEUP"], bus=BUS_BLUETOOTH, vendor=0x2717, product=0x0041),
            Device("AB Shutter Consumer Control", ["KEY_VOLUMEUP"], bus=BUS_BLUETOOTH, vendor=0x2718, product=0x0040),
            Device(f"My {SHUTTER}", ["KEY_VOLUMEUP"], bus=BUS_BLUETOOTH, vendor=0x05AC, product=0x0220),
            Device(f"{SHUTTER} Remote", ["KEY_VOLUMEUP"], bus=BUS_BLUETOOTH, vendor=0x05AC, product=0x0221),
        ]
        self.other = Device(
            "Other Keyboard", ["KEY_VOLUMEUP", "KEY_VOLUMEDOWN", "KEY_ENTER", "KEY_A"], vendor=0x046D, product=0xC31C
        )
        # Made by the scenarios, after the start.
        self.presenter = Remote.presenter()
        self.clicker = Device(
            "2.4G Wireless Clicker", ["KEY_VOLUMEUP", "KEY_MUTE", "KEY_PAGEDOWN"], vendor=0x3151, product=0x3020
        )
        self.slow = Device(SLOW, ["KEY_VOLUMEUP", "KEY_VOLUMEDOWN"], bus=BUS_BLUETOOTH, vendor=0x1234, product=0x5678)

    def run(self) -> None:
        checks = self.checks
        checks.daemon = self.daemon
        try:
            with checks.scenario("input-start"):
                self.start()
            if not checks.completed:
                return
            for scenario in (
                self.no_audio_server,
                self.found_at_start,
                self.grabbed_presses,
                self.python_client,
                self.watch,
                self.unconfigured_device,
                self.near_names,
                self.hold,
                self.replay_with_releases,
                self.double,
                self.dropped_events,
                self.flood_while_stopped,
                self.made_after_start,
                self.gesture_actions,
                self.by_id_path,
                self.readable_later,
                self.devices_command,
                self.others_gone,
                self.gone_during_hold,
                self.pause,
                self.stop,
            ):
                with checks.scenario(scenario.__name__.replace("_", "-")):
                    scenario()
        finally:
            if self.daemon.process is not None and self.daemon.process.poll() is None:
                self.daemon.stop()
            for device in self.devices:
                if device.node is not None:
                    device.destroy()

    @property
    def devices(self) -> list[Device]:
        return [*self.shutter.devices, *self.decoys, self.other, *self.presenter.devices, self.clicker, self.slow]

    def start(self) -> None:
        # Each node is given to the daemon's user as soon as it is made, as udev gives a device to the one
        # logged in; but the slow remote's, later.
        self.shutter.create().give_to(self.user.uid, self.user.gid)
        for device in [*self.decoys, self.other]:
            device.create().give_to(self.user.uid, self.user.gid)
        seconds = self.daemon.start()
        self.checks.info(f"the input daemon answered {seconds:.1f} s after it was started")
        self.memory_at_rest()
        self.subscriber = self.daemon.subscribe()
        self.checks.equal("subscribed", self.subscriber.reply.get("type"), "subscribed")

    def memory_at_rest(self) -> None:
        """RssAnon once the daemon has settled: guarding, its remote grabbed, no client connected (the status
        requests that wait for it are over), and the figure the same twice a second apart."""
        self.daemon.wait_status("guarding", lambda status: status.get("state") == "guarding")
        for device in self.shutter.devices:
            self.daemon.wait_device(f"{device.name} grabbed", entry_of(device, "grabbed"))
        readings = [rss_anon_kb(self.daemon.pid)]
        deadline = time.monotonic() + WAIT
        while len(readings) < 2 or readings[-1] != readings[-2]:
            if time.monotonic() > deadline:
                break
            time.sleep(1)
            readings.append(rss_anon_kb(self.daemon.pid))
        kb = readings[-1]
        build = (
            "release build" if self.release else f"debug build: the {RSS_ANON_LIMIT_KB} kB bound is the release build's"
        )
        self.checks.info(f"the input daemon's RssAnon at rest: {kb} kB ({build}; readings {readings})")
        if self.release:
            self.checks.check(
                f"anonymous memory at rest under {RSS_ANON_LIMIT_KB} kB", kb < RSS_ANON_LIMIT_KB, f"{kb} kB"
            )
            self.checks.check("anonymous memory settled", readings[-1] == readings[-2], readings)

    def no_audio_server(self) -> None:
        self.checks.equal("no audio server runs in the guest", audio_servers_running(), [])
        status = self.daemon.status()
        self.checks.equal("state", status.get("state"), "guarding")
        self.checks.equal("source", status.get("source"), "input")
        self.checks.check("no sink", "sink" not in status, status)
        self.checks.check("no server", "server" not in status, status)

    def pause(self) -> None:
        with Reader(self.shutter.consumer.node) as reader:
            mark = self.subscriber.mark()
            self.shutter.consumer.down("KEY_VOLUMEDOWN")
            press = self.subscriber.wait_for("the press", is_press(self.shutter.consumer, "KEY_VOLUMEDOWN"), mark)
            self.checks.equal("pause", self.daemon.request({"cmd": "pause"}).get("type"), "paused")
            release = self.subscriber.wait_for("the release", is_release(press["seq"]), mark)
            self.checks.equal("release cause", release.get("cause"), "paused")
            entry = self.daemon.wait_device("paused in status", entry_of(self.shutter.consumer))
            self.checks.equal("status: device state", entry.get("state"), "paused")
            self.checks.equal("status: state", self.daemon.status().get("state"), "paused")
            # Let go: the key's up and a new tap reach other readers now.
            self.shutter.consumer.up("KEY_VOLUMEDOWN")
            self.shutter.consumer.press("KEY_VOLUMEUP")
            got = [(event.key, event.value) for event in reader.wait(3, WAIT, repeats=False)]
            self.checks.equal(
                "a second reader gets the keys", got, [("KEY_VOLUMEDOWN", 0), ("KEY_VOLUMEUP", 1), ("KEY_VOLUMEUP", 0)]
            )
            self.checks.equal("resume", self.daemon.request({"cmd": "resume"}).get("type"), "resumed")
            self.checks.equal("status: state once resumed", self.daemon.status().get("state"), "guarding")
            states = [m["state"] for m in self.subscriber.since(mark) if m.get("type") == "state"]
            self.checks.equal("state lines", states, ["paused", "guarding"])
            self.daemon.wait_device("grabbed again", entry_of(self.shutter.consumer, "grabbed"))
            tap(self.subscriber, self.shutter.consumer, "KEY_VOLUMEUP")
            self.checks.equal("nothing reached a second reader once resumed", reader.pending(), [])

    def stop(self) -> None:
        mark = self.subscriber.mark()
        self.shutter.consumer.down("KEY_VOLUMEUP")
        press = self.subscriber.wait_for("the press", is_press(self.shutter.consumer, "KEY_VOLUMEUP"), mark)
        status = self.daemon.stop()
        self.checks.equal("exit status", status, 0)
        release = self.subscriber.wait_for("the release", is_release(press["seq"]), mark)
        self.checks.equal("release cause", release.get("cause"), "stopped")
        self.checks.check("the connection ends", self.subscriber.wait_end())
        with Reader(self.shutter.consumer.node) as reader:
            self.shutter.consumer.up("KEY_VOLUMEUP")
            self.checks.equal(
                "the device is let go",
                [(e.key, e.value) for e in reader.wait(1, WAIT, repeats=False)],
                [("KEY_VOLUMEUP", 0)],
            )
