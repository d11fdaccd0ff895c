"""`volume-guard doctor` as the booth's user runs it when a press does nothing: a daemon of its own, with
`source = "input"` and a remote of its own, and each broken link named with its fix and exit 1: the remote
missing, its node unreadable, the daemon stopped, the daemon not answering (its own grabs its, not another
program's), the remote grabbed by another program; a working setup
(the daemon running as the user, the remote grabbed by it) exits 0.

The guest runs no systemd and no logind: the service is a check doctor cannot make (said so, not failed), and
the user is on no seat, so the rule it prescribes is the group's.
"""

import json
import os
import signal
import subprocess
from pathlib import Path

from harness import WAIT, Account, Checks, Daemon
from helpers import entry_of
from remote import EVIOCGRAB, Remote

REMOTE = "Doctor Shutter3"
"""A name of its own: no other scenario's remote or daemon is met."""

GRABBER = """
import fcntl, os, sys, time
descriptor = os.open(sys.argv[1], os.O_RDONLY)
fcntl.ioctl(descriptor, int(sys.argv[2]), 1)
print("grabbed", flush=True)
time.sleep(600)
"""
"""Another program that grabs the remote, as keyd or evsieve would, as the booth's user: doctor may name it."""


def doctor_daemon(checks: Checks, binary: Path) -> None:
    user = Account("nobody", "doctor")
    user.write_config(f'source = "input"\ndevices = ["{REMOTE}"]\n')
    remote = Remote.ab_shutter3(name=REMOTE, vendor=0x2717, product=0x0050)
    daemon = Daemon(binary, user, [], "the doctor daemon")
    checks.daemon = daemon
    grabber: subprocess.Popen[bytes] | None = None

    def doctor(*arguments: str) -> tuple[int, list[str]]:
        run = user.run([str(binary), "doctor", *arguments], timeout=WAIT * 4)
        if not arguments:
            for line in run.stdout.splitlines():
                checks.info(f"doctor: {line}")
        return run.returncode, run.stdout.splitlines()

    def failed(lines: list[str]) -> list[str]:
        return [line for line in lines if line.startswith("FAIL")]

    try:
        with checks.scenario("doctor-missing-and-stopped"):
            status, lines = doctor()
            checks.equal("exit status", status, 1)
            missing = [line for line in failed(lines) if line.startswith(f'FAIL  device "{REMOTE}": not present — ')]
            checks.check(
                "the missing remote is named, with how to connect it", "bluetoothctl connect" in "".join(missing), lines
            )
            stopped = [line for line in failed(lines) if line.startswith("FAIL  daemon: not running")]
            checks.check(
                "the stopped daemon is named, with how to start it",
                "systemctl --user start volume-guard" in "".join(stopped),
                lines,
            )
            unknown = [line for line in lines if line.startswith("?     service:")]
            checks.check("the service cannot be checked, and says so", len(unknown) == 1, lines)

        with checks.scenario("doctor-unreadable"):
            remote.create()
            status, lines = doctor()
            checks.equal("exit status", status, 1)
            consumer = remote.consumer
            prefix = f'FAIL  device "{consumer.name}": {consumer.node}'
            text = "".join(line for line in failed(lines) if line.startswith(prefix))
            checks.check("the unreadable node is named", "nobody cannot read it (permission denied)" in text, lines)
            checks.check(
                "its fix: the group's rule, installed and applied",
                "volume-guard devices --udev-rule --access group | sudo tee /etc/udev/rules.d/70-volume-guard.rules"
                in text
                and "udevadm trigger" in text,
                lines,
            )

        with checks.scenario("doctor-working"):
            remote.give_to(user.uid, user.gid)
            daemon.start()
            for device in remote.devices:
                daemon.wait_device(f"{device.name} grabbed", entry_of(device, "grabbed"))
            status, lines = doctor()
            checks.equal("exit status", status, 0)
            checks.check("nothing failed", not failed(lines), lines)
            for device in remote.devices:
                checks.check(
                    f"{device.name}: grabbed by volume-guard",
                    any(
                        line.startswith(f'ok    device "{device.name}"') and "grabbed by volume-guard" in line
                        for line in lines
                    ),
                    lines,
                )
            status, lines = doctor("--json")
            report = json.loads("\n".join(lines))
            checks.equal("--json: ok", (status, report.get("ok")), (0, True))
            links = [finding.get("link") for finding in report.get("findings", [])]
            checks.equal("--json: the links in order", links, ["config", "daemon", "device", "device", "service"])

        with checks.scenario("doctor-daemon-silent"):
            # Stopped by SIGSTOP, the daemon keeps its grabs and its socket accepts: it does not answer.
            pid = daemon.pid
            os.kill(pid, signal.SIGSTOP)
            try:
                status, lines = doctor()
            finally:
                os.kill(pid, signal.SIGCONT)
            checks.equal("exit status", status, 1)
            silent = [line for line in failed(lines) if line.startswith("FAIL  daemon: does not answer")]
            checks.check(
                "the daemon that does not answer is named by its pid",
                len(silent) == 1 and f"(pid {pid})" in silent[0] and f"kill {pid}" in silent[0],
                lines,
            )
            for device in remote.devices:
                text = "".join(line for line in failed(lines) if line.startswith(f'FAIL  device "{device.name}"'))
                checks.check(
                    f"{device.name}: held by the daemon, not by another program",
                    "held by the daemon" in text and f"(pid {pid})" in text and "another program" not in text,
                    lines,
                )
            daemon.wait_status("the daemon answers again once continued", lambda status: status.get("state") == "guarding")

        with checks.scenario("doctor-daemon-stopped"):
            checks.equal("the daemon stops", daemon.stop(), 0)
            status, lines = doctor()
            checks.equal("exit status", status, 1)
            checks.check(
                "only the daemon fails, with how to start it",
                len(failed(lines)) == 1 and "systemctl --user start volume-guard" in failed(lines)[0],
                lines,
            )

        with checks.scenario("doctor-grabbed-elsewhere"):
            consumer = remote.consumer
            grabber = user.popen(
                ["/usr/bin/python3", "-c", GRABBER, str(consumer.node), str(EVIOCGRAB)], stdout=subprocess.PIPE
            )
            assert grabber.stdout is not None
            checks.equal("another program grabs the remote", grabber.stdout.readline().strip(), b"grabbed")
            daemon.start()
            daemon.wait_device("the daemon refused the grabbed part", entry_of(consumer, "refused"))
            status, lines = doctor()
            checks.equal("exit status", status, 1)
            text = "".join(line for line in failed(lines) if line.startswith(f'FAIL  device "{consumer.name}"'))
            named = f"another program grabbed it; these have it open: python3 (pid {grabber.pid})"
            checks.check("the program is named", named in text, lines)
            checks.check("its fix: stop it", f"kill {grabber.pid}" in text, lines)
            running = [line for line in lines if line.startswith("ok    daemon: running")]
            checks.check("the daemon itself is fine", len(running) == 1, lines)
            grabber.kill()
            grabber.wait()
            grabber = None
            daemon.wait_device("the daemon takes the remote once it is let go", entry_of(consumer, "grabbed"))
            status, lines = doctor()
            checks.equal("exit status, once it is let go", status, 0)
            checks.equal("the daemon stops", daemon.stop(), 0)
    finally:
        if grabber is not None:
            grabber.kill()
            grabber.wait()
        if daemon.process is not None and daemon.process.poll() is None:
            daemon.stop()
        remote.destroy()
