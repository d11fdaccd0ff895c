"""The second daemon, with `--source both`: the sink guard of a private PulseAudio and a remote's keys at once.

A daemon of its own, as the input daemon's guest must have no audio server anywhere.
"""

import subprocess
import time
from pathlib import Path

from harness import WAIT, Account, Checks, Daemon, Timeout
from helpers import SHUTTER, entry_of, gone_during_hold, is_gesture, is_press, is_release, tap
from remote import Remote


def start_pulseaudio(user: Account) -> subprocess.Popen[bytes]:
    """A private PulseAudio of `user`'s, with the null sink guard_a, once it answers; its log beside."""
    log_path = user.root / "pulseaudio.log"
    with open(log_path, "wb") as log:
        server = user.popen(
            [
                "pulseaudio",
                "-n",
                "--daemonize=no",
                "--exit-idle-time=-1",
                "--load=module-native-protocol-unix",
                "--load=module-null-sink sink_name=guard_a",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + WAIT
    while "guard_a" not in user.run(["pactl", "list", "short", "sinks"]).stdout:
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            server.wait()
            raise Timeout(f"PulseAudio did not start in the guest:\n{log_path.read_text(errors='replace')}")
        time.sleep(0.2)
    return server


def both_daemon(checks: Checks, binary: Path) -> None:
    """`--source both`: the sink guard of a private PulseAudio, and the shutter's keys from the device."""
    user = Account("nobody", "both")
    with checks.scenario("both-audio-server"):
        server = start_pulseaudio(user)
        checks.check("PulseAudio runs in the guest", True)
    if not checks.completed:
        return
    shutter = Remote.ab_shutter3().create()
    shutter.give_to(user.uid, user.gid)
    daemon = Daemon(binary, user, ["--source", "both", "--device", SHUTTER, "--hold-delay", "300"], "the both daemon")
    checks.daemon = daemon
    try:
        with checks.scenario("both"):
            seconds = daemon.start()
            checks.info(f"the both daemon answered {seconds:.1f} s after it was started")
            subscriber = daemon.subscribe()
            # It serves its socket at once, and guards once PulseAudio answers.
            status = daemon.wait_status("guarding", lambda status: status.get("state") == "guarding")
            checks.equal("source", status.get("source"), "both")
            checks.equal("sink", status.get("sink"), "guard_a")
            checks.check("server", str(status.get("server", "")).startswith("pulseaudio"), status)
            for device in shutter.devices:
                daemon.wait_device(f"{device.name} grabbed", entry_of(device, "grabbed"))
            mark = subscriber.mark()
            press, _ = tap(subscriber, shutter.consumer, "KEY_VOLUMEUP")
            checks.equal("a device's press", (press.get("source"), press.get("direction")), ("input", "up"))
            changed = user.run(["pactl", "set-sink-volume", "guard_a", "+5%"])
            checks.equal("pactl", changed.returncode, 0)
            sink_press = subscriber.wait_for(
                "a sink press", lambda m: m.get("type") == "press" and m.get("source") == "sink", mark
            )
            checks.equal("a sink's press", (sink_press.get("direction"), sink_press.get("sink")), ("up", "guard_a"))
            presses = [m for m in subscriber.since(mark) if m.get("type") == "press"]
            checks.equal("one press each, none counted twice", [m.get("source") for m in presses], ["input", "sink"])
            # A remote gone during a hold, with the sink guarded as well.
            gone_during_hold(checks, daemon, subscriber, shutter, user)
            # --hold-delay 300: held until the hold is told, the key was down at least that long.
            mark = subscriber.mark()
            shutter.consumer.down("KEY_VOLUMEDOWN")
            press = subscriber.wait_for("the press", is_press(shutter.consumer, "KEY_VOLUMEDOWN"), mark)
            subscriber.wait_for("hold_start", is_gesture("hold_start", press["seq"]), mark)
            shutter.consumer.up("KEY_VOLUMEDOWN")
            release = subscriber.wait_for("the release", is_release(press["seq"]), mark)
            checks.check("--hold-delay: held at least 300 ms", 300 <= release.get("held_ms", 0), release)
            checks.equal("exit status", daemon.stop(), 0)
    finally:
        if daemon.process is not None and daemon.process.poll() is None:
            daemon.stop()
        server.terminate()
        server.wait()
        shutter.destroy()
