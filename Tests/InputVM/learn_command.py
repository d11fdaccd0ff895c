"""`volume-guard learn`, as a booth is set up on a fresh machine: run with sudo for the booth's user while the
remote's keys are pressed, it writes that user's config file; `run` then takes exactly that remote and not an
identical one beside it, told apart by its Bluetooth address. And with the daemon running, learn pauses it while
it listens and resumes it after.

The remotes are uhid devices (uhid_remote), which have a Bluetooth address as a paired remote has. The guest
has no sudo: learn is run as root with the variables sudo sets (SUDO_UID, SUDO_USER), which is all it reads.
"""

import os
import subprocess
import threading
import time
from pathlib import Path

from both_daemon import start_pulseaudio
from harness import WAIT, Account, Checks, Daemon, open_files
from helpers import read_lines
from remote import BUS_BLUETOOTH, Device, Reader
from uhid_remote import BluetoothRemote

MINE, TWIN, WOKEN = "2a:07:98:10:34:9c", "2a:07:98:10:34:9d", "2a:07:98:10:34:9e"
BEFORE = '# The booth.\nmode = "always"\n\n# Its action.\n[[action]]\nrun = ["/bin/true"]\n'


def listen(command: list[str], **options: object) -> tuple[subprocess.Popen[bytes], list[str]]:
    """`learn` started, once it says it listens; the lines it printed until then."""
    learn = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **options)  # type: ignore[call-overload]
    assert learn.stdout is not None
    lines = read_lines(learn.stdout, lambda line: line.startswith("Press the button"), timeout=WAIT * 2)
    if not any(line.startswith("Press the button") for line in lines):
        learn.kill()
        raise RuntimeError(f"learn did not start listening: {lines}")
    return learn, lines


def finish(learn: subprocess.Popen[bytes], lines: list[str]) -> str:
    """All that `learn` printed, once it ended."""
    out, _ = learn.communicate(timeout=WAIT * 2)
    return "\n".join(lines) + "\n" + out.decode(errors="replace")


def desktop_turns_key_into_volume(checks: Checks, binary: Path, user: Account, remote: BluetoothRemote) -> None:
    """A private PulseAudio of the user's, and a stand-in for a desktop: a reader of the remote's node that turns
    its volume up into a louder sink, as a desktop's media keys do, through one `pacmd` connected beforehand (a
    program started per key would take seconds in the emulated arm64 guest; a desktop takes milliseconds). learn,
    run as the user, reads the key, sees the sink change right after it, says so, and puts the level back."""
    server = start_pulseaudio(user)
    stop = threading.Event()
    connected = user.as_user | {"stdin": subprocess.PIPE, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    pacmd = subprocess.Popen(["pacmd"], **connected)

    def desktop() -> None:
        assert pacmd.stdin is not None
        with Reader(remote.nodes[1]) as reader:
            while not stop.is_set():
                if any(e.key == "KEY_VOLUMEUP" and e.value == 1 for e in reader.pending()):
                    pacmd.stdin.write(b"set-sink-volume guard_a 0x11000\n")
                    pacmd.stdin.flush()
                time.sleep(0.01)

    try:
        remote.give_to(user.uid, user.gid)
        before = user.run(["pactl", "get-sink-volume", "guard_a"]).stdout
        scratch = user.root / "desktop.toml"
        command = [str(binary), "learn", "--count", "1", "--config", str(scratch), "--socket", str(user.root / "none.sock")]
        learn, lines = listen(command, **user.as_user)
        watcher = threading.Thread(target=desktop)
        watcher.start()
        checks.check("learn watches the sink", any('default sink "guard_a"' in line for line in lines), lines)
        time.sleep(0.3)
        remote.press("KEY_VOLUMEUP")
        output = finish(learn, lines)
        checks.equal("exit status", learn.returncode, 0)
        checks.check("the desktop's change is named", "The desktop turned KEY_VOLUMEUP into a volume change (up)" in output, output)
        checks.check("and grabbing the remote is the cure", 'source  input: The desktop turned the key' in output, output)
        deadline = time.monotonic() + WAIT
        while user.run(["pactl", "get-sink-volume", "guard_a"]).stdout != before and time.monotonic() < deadline:
            time.sleep(0.2)
        checks.equal("the level put back", user.run(["pactl", "get-sink-volume", "guard_a"]).stdout, before)
    finally:
        stop.set()
        pacmd.kill()
        pacmd.wait()
        server.terminate()
        server.wait()


def learn_command(checks: Checks, binary: Path) -> None:
    user = Account("nobody", "learn")
    config = user.write_config(BEFORE)
    socket = user.runtime / "volume-guard.sock"
    photos = user.root / "photos"
    mine, twin = BluetoothRemote("AB Shutter3", MINE), BluetoothRemote("AB Shutter3", TWIN)
    lookalike = Device("AB Shutter30", ["KEY_VOLUMEUP"], bus=BUS_BLUETOOTH, vendor=0x2717, product=0x0040)
    daemon = Daemon(binary, user, [], "the learned daemon")
    checks.daemon = daemon
    try:
        for remote in (twin, mine):
            remote.create()
        lookalike.create()
        with checks.scenario("learn --write, run with sudo for a user who cannot read the remote"):
            sudo = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "HOME": "/root"}
            sudo |= {"SUDO_UID": str(user.uid), "SUDO_GID": str(user.gid), "SUDO_USER": user.user}
            photo = f"echo photo >> {photos}"
            command = [str(binary), "learn", "--write", "--config", str(config), "--socket", str(socket), "--next", "3"]
            command += ["--", "/bin/sh", "-c", photo]
            learn, lines = listen(command, env=sudo, stdin=subprocess.DEVNULL)
            mine.press("KEY_VOLUMEUP")
            time.sleep(0.3)
            mine.press("KEY_ENTER")
            output = finish(learn, lines)
            checks.equal("exit status", learn.returncode, 0)
            checks.check("names the remote, its bus and address", all(t in output for t in ("AB Shutter3", "bluetooth", MINE)), output)
            checks.check("heard both keys", "Learned KEY_VOLUMEUP" in output and "Learned KEY_ENTER" in output, output)
            text = config.read_text()
            checks.check("source input", 'source = "input"' in text, text)
            checks.check("the remote by its address alone", f'devices = ["{MINE}"]' in text, text)
            checks.check("its other key", 'keys = ["KEY_ENTER"]' in text, text)
            checks.check("every other line kept", all(line in text.splitlines() for line in BEFORE.splitlines()), text)
            action = f'[[action]]\non = "up"\nrun = ["/bin/sh", "-c", "{photo}"]\ncooldown = 1\n'
            checks.check("the command's action, on the first key, at the end", text.endswith(action), text)
            checks.equal("the old file kept", Path(f"{config}.bak").read_text(), BEFORE)
            owner = config.stat()
            checks.equal("the file is the user's", (owner.st_uid, owner.st_gid), (user.uid, user.gid))
            checks.check("says the udev rule comes next, by the group (no seat)", "--udev-rule --access group" in output, output)
            checks.check("and lingering", f"sudo loginctl enable-linger {user.user}" in output, output)
            checked = user.run([str(binary), "config"])
            checks.equal("`volume-guard config` passes", checked.returncode, 0)
        if not checks.completed:
            return
        with checks.scenario("run takes the learned remote, and not its identical twin"):
            for remote in (mine, twin):
                remote.give_to(user.uid, user.gid)
            lookalike.give_to(user.uid, user.gid)
            daemon.start()
            for node in mine.nodes:
                daemon.wait_device(f"{node} grabbed", lambda e, node=node: e.get("path") == node and e.get("state") == "grabbed")
            entries = daemon.device_entries()
            checks.equal("only its two devices", sorted(e.get("path") for e in entries), sorted(mine.nodes))
            checks.equal("status names their address", [e.get("address") for e in entries], [MINE, MINE])
            opened = daemon.open_nodes()
            checks.check("the twin and the look-alike never opened", not opened & {*twin.nodes, lookalike.node}, opened)
            subscriber = daemon.subscribe()
            mark = subscriber.mark()
            twin.press("KEY_VOLUMEUP")
            mine.press("KEY_ENTER")
            subscriber.wait_for("the learned remote's Enter", lambda m: m.get("type") == "press" and m.get("key") == "KEY_ENTER", mark)
            presses = [m.get("path") for m in subscriber.since(mark) if m.get("type") == "press"]
            checks.equal("a press from it, none from the twin", presses, [mine.nodes[0]])
            mine.press("KEY_VOLUMEUP")
            deadline = time.monotonic() + WAIT
            while not photos.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            checks.equal("its volume up runs the learned action, once", photos.read_text() if photos.exists() else "", "photo\n")
            subscriber.close()
        with checks.scenario("learn hears a key held since before it started"):
            twin.down("KEY_VOLUMEUP")
            time.sleep(0.5)
            scratch = user.root / "held.toml"
            learn, lines = listen([str(binary), "learn", "--count", "1", "--config", str(scratch)], stdin=subprocess.DEVNULL)
            output = finish(learn, lines)
            twin.up("KEY_VOLUMEUP")
            checks.equal("exit status", learn.returncode, 0)
            checks.check("the held key, on the twin", "Learned KEY_VOLUMEUP" in output and TWIN in output, output)
        with checks.scenario("learn hears the press that wakes a remote: its key down as the remote connects, let go at once"):
            scratch = user.root / "woken.toml"
            learn, lines = listen([str(binary), "learn", "--count", "1", "--config", str(scratch)], stdin=subprocess.DEVNULL)
            with BluetoothRemote("AB Shutter3", WOKEN) as woken:
                woken.down("KEY_VOLUMEUP")
                deadline = time.monotonic() + WAIT
                while woken.nodes[1] not in open_files(learn.pid) and time.monotonic() < deadline:
                    time.sleep(0.01)
                time.sleep(0.1)
                woken.up("KEY_VOLUMEUP")
                output = finish(learn, lines)
            checks.equal("exit status", learn.returncode, 0)
            checks.check("the key, on the woken remote", "Learned KEY_VOLUMEUP" in output and WOKEN in output, output)
        with checks.scenario("learn sees the desktop turn the remote's key into a volume change, and puts it back"):
            desktop_turns_key_into_volume(checks, binary, user, twin)
        with checks.scenario("learn as the user, the daemon running: paused while listening, resumed after"):
            command = [str(binary), "learn", "--count", "1"]
            learn, lines = listen(command, **user.as_user)
            daemon.wait_device("let go while learn listens", lambda e: e.get("path") == mine.nodes[1] and e.get("state") == "paused")
            mine.press("KEY_VOLUMEDOWN")
            output = finish(learn, lines)
            checks.equal("exit status", learn.returncode, 0)
            checks.check("says it paused the daemon", "paused while listening" in output, output)
            checks.check("heard the key", "Learned KEY_VOLUMEDOWN" in output, output)
            checks.check("says to restart the daemon", "systemctl --user restart volume-guard" in output, output)
            checks.equal("the file untouched without --write", 'devices = ["' + MINE + '"]' in config.read_text(), True)
            for node in mine.nodes:
                daemon.wait_device(f"{node} grabbed again", lambda e, node=node: e.get("path") == node and e.get("state") == "grabbed")
            checks.equal("guarding again", daemon.status().get("state"), "guarding")
            checks.equal("exit status of the daemon", daemon.stop(), 0)
    finally:
        if daemon.process is not None and daemon.process.poll() is None:
            daemon.stop()
        for remote in (mine, twin):
            remote.destroy()
        lookalike.destroy()
        for path in Path(f"{config}.bak"), config:
            if path.exists():
                os.unlink(path)
