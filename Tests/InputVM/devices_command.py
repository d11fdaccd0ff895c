"""`volume-guard devices`, as a person runs it to see which nodes a config matches, and the udev rule it
writes: applied by the root's own udev (`udevadm test`: the host's, or the arm64 root's), with its rules, to the
guest's devices.
"""

import grp
import json
import os
import re
import stat
import subprocess
from pathlib import Path

from harness import Account, Checks
from remote import Device

RULE_FILE = Path("/run/udev/rules.d/70-volume-guard.rules")
"""Where the rule goes in the guest: udev reads /run/udev/rules.d as it reads /etc/udev/rules.d (the guest's
/etc is the root's, read-only), in one order by file name."""

GUEST_KEYBOARDS = ("AT Translated Set 2 keyboard", "QEMU Virtio Keyboard")
"""The keyboard each VM of scripts/input-vm has, one: a PC's i8042, or the virtio keyboard it gives arm64's
-M virt, which has none of its own."""


def udev_test(device: Device) -> subprocess.CompletedProcess[str]:
    """`udevadm test` of an add of `device`'s node: it runs every rule, as udev would, and prints the tags
    and the builtins to run; it runs none of them, but it does set the node's owner and mode as the rules
    say, so those are put back after."""
    node = Path(device.node or "")
    before = node.stat()
    try:
        test = subprocess.run(
            ["udevadm", "test", "--action=add", f"/sys/class/input/{node.name}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        os.chown(node, before.st_uid, before.st_gid)
        os.chmod(node, stat.S_IMODE(before.st_mode))
    if test.returncode != 0:
        raise RuntimeError(f"udevadm test {node.name} failed ({test.returncode}): {test.stderr[-2000:]}")
    return test


def udev_gives(device: Device) -> bool:
    """Whether udev tags `device`'s node `uaccess` in time for the seat's late rule (73-seat-late.rules) to
    run the `uaccess` builtin, which gives the node to the user logged in at the seat."""
    test = udev_test(device)
    # The tags of this event: TAGS keeps those of earlier ones too (udevadm test records them in udev's
    # database, as udev does).
    tags = [line.removeprefix("CURRENT_TAGS=") for line in test.stdout.splitlines() if line.startswith("CURRENT_TAGS=")]
    if not tags:
        raise RuntimeError(f"udevadm test {device.node} printed no CURRENT_TAGS: {test.stdout[-2000:]}")
    return ":uaccess:" in tags[0] and "run: 'uaccess'" in test.stdout


def udev_group(device: Device) -> tuple[int, int] | None:
    """The group and mode udev gives `device`'s node, as `udevadm test` logs them ("Setting permissions
    /dev/input/event5, uid=0, gid=65534, mode=0640")."""
    test = udev_test(device)
    found = re.search(
        rf"Setting permissions {re.escape(device.node or '')}, uid=\d+, gid=(\d+), mode=(0[0-7]*)\b", test.stderr
    )
    return (int(found[1]), int(found[2], 8)) if found else None


def check_devices_command(
    checks: Checks, binary: Path, user: Account, configured: list[Device], others: list[Device], linked: Device
) -> None:
    """`volume-guard devices` as the daemon's user, while the daemon runs, and `--udev-rule`."""
    listing = user.run([str(binary), "devices"])
    checks.equal("exit status", listing.returncode, 0)
    for device in [*configured, *others]:
        checks.check(
            f"lists {device.name}", device.name in listing.stdout and device.ids in listing.stdout, listing.stdout
        )

    listing = user.run([str(binary), "devices", "--json"])
    checks.equal("--json: exit status", listing.returncode, 0)
    entries = json.loads(listing.stdout)
    by_node = {entry.get("node"): entry for entry in entries}
    for device in [*configured, *others]:
        entry = by_node.get(device.node, {})
        checks.equal(f"--json: {device.name}", (entry.get("name"), entry.get("ids")), (device.name, device.ids))
        checks.equal(f"--json: {device.name} readable", entry.get("readable"), True)
        checks.equal(f"--json: {device.name} grabbed", entry.get("grabbed"), device in configured)
        checks.equal(f"--json: {device.name} configured", bool(entry.get("matches")), device in configured)
    # The guest's own keyboard is root's: this user cannot read it.
    keyboard = [entry.get("readable") for entry in entries if entry.get("name") in GUEST_KEYBOARDS]
    checks.equal("--json: a node this user cannot read", keyboard, [False])
    entry = by_node.get(linked.node, {})
    checks.equal("--json: stable paths", entry.get("stable_paths"), linked.links)

    rule = user.run([str(binary), "devices", "--udev-rule", "--access", "seat"])
    checks.equal("--udev-rule: exit status", rule.returncode, 0)
    text = rule.stdout + rule.stderr
    checks.check("--udev-rule: uaccess", 'TAG+="uaccess"' in rule.stdout, rule.stdout)
    checks.check(
        "--udev-rule: where it goes", re.search(r"/etc/udev/rules\.d/([0-6][0-9]|7[0-2])-", text) is not None, text
    )
    checks.check("--udev-rule: how to apply it", "udevadm control --reload" in text and "udevadm trigger" in text, text)
    RULE_FILE.parent.mkdir(parents=True, exist_ok=True)
    RULE_FILE.write_text(rule.stdout)
    try:
        for device in configured:
            checks.check(f"--udev-rule: udev gives {device.name}", udev_gives(device), rule.stdout)
        for device in others:
            checks.check(f"--udev-rule: udev does not give {device.name}", not udev_gives(device), rule.stdout)
    finally:
        RULE_FILE.unlink()
    checks.check(f"without the rule, udev does not give {configured[0].name}", not udev_gives(configured[0]))
    check_group_rule(checks, binary, user, configured, others)


def check_group_rule(
    checks: Checks, binary: Path, user: Account, configured: list[Device], others: list[Device]
) -> None:
    """`--udev-rule` by default: the user's group when logind's record of the user names no active seat (the
    guest runs no logind, as a booth's service started at boot has no session), the seat when it does."""
    rule = user.run([str(binary), "devices", "--udev-rule"])
    checks.equal("--udev-rule, no session: exit status", rule.returncode, 0)
    assignment = f'GROUP="{grp.getgrgid(user.gid).gr_name}", MODE="0640"'
    checks.check(
        "--udev-rule, no session: the group", assignment in rule.stdout and "uaccess" not in rule.stdout, rule.stdout
    )
    checks.check("--udev-rule, no session: says why", "no active session on a seat" in rule.stderr, rule.stderr)
    checks.check(
        "--udev-rule, no session: a shared group is told", f"is not {user.user}'s alone" in rule.stderr, rule.stderr
    )
    RULE_FILE.write_text(rule.stdout)
    try:
        for device in configured:
            checks.equal(
                f"--access group: udev gives {device.name} to the group", udev_group(device), (user.gid, 0o640)
            )
        for device in others:
            given = udev_group(device)
            checks.check(
                f"--access group: udev does not give {device.name}", given is not None and given[0] != user.gid, given
            )
    finally:
        RULE_FILE.unlink()
    # As logind records a user with an active session on seat0 (logind-user.c).
    record = Path(f"/run/systemd/users/{user.uid}")
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(f"NAME={user.user}\nSTATE=active\nSEATS=seat0\nACTIVE_SEATS=seat0\nONLINE_SEATS=seat0\n")
    try:
        rule = user.run([str(binary), "devices", "--udev-rule"])
    finally:
        record.unlink()
    checks.check(
        "--udev-rule, a session on seat0: uaccess",
        'TAG+="uaccess"' in rule.stdout and "GROUP=" not in rule.stdout,
        rule.stdout,
    )
