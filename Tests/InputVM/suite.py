"""The input-device source against a real kernel: uinput remotes, the daemon under test, its socket.

Runs in the VM of scripts/input-vm, as root (it makes devices), and runs the daemon as the unprivileged
user nobody, whom each device's node is given to as udev would give it to the logged-in user:

    scripts/input-vm /usr/bin/python3 Tests/InputVM/suite.py [--release]

The daemon is $VOLUME_GUARD_BINARY, else the checkout's .build/debug/volume-guard (.build/release with
--release, which also holds it to the release build's bound on anonymous memory at rest). Prints one `CHECK ok|FAIL scenario/check` line per check, `INFO` lines (timings), the whole log
of a daemon that failed a check, and a last `RESULT passed=N failed=M seconds=S` line; exits 1 if any check
failed. scripts/test-input reads them.

Four daemons, as each takes seconds to start in the VM: one with `source = "input"` from its config file
and no audio server anywhere in the guest, for most scenarios; one with `--source both` and a private
PulseAudio; one in `while-subscribed` mode; and one that `volume-guard doctor` examines, stopped and started.

The rig and the run are here; the scenarios are in input_daemon (with input_presses and input_devices),
both_daemon, learn_command, learn_hostile, while_subscribed and doctor_command, beside what they share in helpers and devices_command.
"""

import argparse
import os
import statistics
import sys
from pathlib import Path

from both_daemon import both_daemon
from doctor_command import doctor_daemon
from harness import REPOSITORY, SCRATCH, WAIT, Account, Checks, executable
from helpers import latencies
from input_daemon import InputDaemonScenarios
from learn_command import learn_command
from learn_hostile import learn_hostile
from remote import Reader, Remote
from while_subscribed import while_subscribed_daemon


def rig(checks: Checks, binary: Path) -> None:
    """What the scenarios stand on: remotes the kernel describes as they were set up, readers that get their
    keys (with the kernel's own auto-repeat), an exclusive grab, and the build under test running as nobody."""
    with Remote.ab_shutter3() as shutter:
        for device in shutter.devices:
            sysfs = Path("/sys/class/input") / str(device.sysname)
            described = [
                (sysfs / item).read_text().strip() for item in ("name", "id/bustype", "id/vendor", "id/product")
            ]
            checks.equal(f"{device.name}: sysfs", described, [device.name, "0005", "2717", "0040"])
        consumer = shutter.consumer
        with Reader(consumer.node) as first, Reader(consumer.node) as second:
            consumer.down("KEY_VOLUMEUP")
            got = first.wait(2, WAIT)  # the down and the first repeat
            consumer.up("KEY_VOLUMEUP")
            got += first.wait(1, WAIT, repeats=False)  # the up, after any further repeats
            values = [event.value for event in got if event.key == "KEY_VOLUMEUP"]
            checks.check("a reader gets down, the kernel's repeats, up", values[:2] == [1, 2] and values[-1] == 0, got)
            second.pending()
            first.grab()
            checks.check("a second grab is refused", second.grab_is_held())
            consumer.press("KEY_VOLUMEDOWN")
            got = [(event.key, event.value) for event in first.wait(2, WAIT)]
            checks.equal("the grabbing reader gets the keys", got, [("KEY_VOLUMEDOWN", 1), ("KEY_VOLUMEDOWN", 0)])
            checks.equal("the other reader gets none", second.pending(), [])
    version = Account("nobody", "rig").run([str(binary), "--version"])
    checks.check(
        "the build under test runs as nobody", version.returncode == 0 and version.stdout[:1].isdigit(), version
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--release",
        action="store_true",
        help="test .build/release/volume-guard, or a release build's $VOLUME_GUARD_BINARY",
    )
    arguments = parser.parse_args()
    if not os.path.exists("/dev/uinput"):
        print("input-suite: no /dev/uinput: run this in the VM, scripts/input-vm", file=sys.stderr)
        return 2
    build = "release" if arguments.release else "debug"
    binary = Path(os.environ.get("VOLUME_GUARD_BINARY") or REPOSITORY / ".build" / build / "volume-guard")
    SCRATCH.mkdir(mode=0o755)
    checks = Checks()
    binary = executable(binary)
    checks.info(f"daemon under test: {binary}")
    checks.info(f"kernel {os.uname().release}")
    with checks.scenario("rig"):
        rig(checks, binary)
    if not checks.completed:
        return checks.result()
    InputDaemonScenarios(checks, binary, arguments.release).run()
    both_daemon(checks, binary)
    learn_command(checks, binary)
    learn_hostile(checks, binary)
    while_subscribed_daemon(checks, binary)
    doctor_daemon(checks, binary)
    if latencies:
        median, longest = statistics.median(latencies) * 1000, max(latencies) * 1000
        checks.info(
            f"key down to press line at a subscriber, {len(latencies)} presses: median {median:.0f} ms, "
            f"max {longest:.0f} ms (software CPU: for information only)"
        )
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
