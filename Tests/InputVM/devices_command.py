"""`volume-guard devices`, as a person runs it to see which nodes a config matches, and the udev rule it
writes: judged by reading the rule as udev would, since the guest has no udev to apply it.
"""

import fnmatch
import json
import os
import re
from pathlib import Path

from harness import Account, Checks
from remote import Device

RULE_KEY = re.compile(r'\s*([A-Za-z_]+(?:\{[^}]*\})?)\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')


def udev_glob(pattern: str) -> str:
    """A udev match value as an fnmatch pattern: udev escapes a glob character with a backslash, fnmatch
    with brackets."""
    return re.sub(r"\\(.)", lambda escaped: "[" + escaped.group(1) + "]", pattern)


def udev_rule_gives(rule_text: str, device: Device) -> bool:
    """Whether a rule file gives `device`'s node to the logged-in user: a rule line that tags it `uaccess`
    and whose match keys all hold.

    Evaluates what such a rule matches on, as udev does for an input event node: SUBSYSTEM, KERNEL and the
    parent input device's ATTRS{name}, ATTRS{id/vendor} and ATTRS{id/product}, with shell patterns and
    `|` alternatives. A key of another kind, or a line this cannot read, is an error: the check could not
    judge the rule.
    """
    values = {
        "SUBSYSTEM": "input",
        "KERNEL": os.path.basename(device.node or ""),
        "ATTRS{name}": device.name,
        "ATTRS{id/vendor}": f"{device.vendor:04x}",
        "ATTRS{id/product}": f"{device.product:04x}",
        "ATTRS{id/bustype}": f"{device.bus:04x}",
    }
    for line in rule_text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        holds, tags, position = True, False, 0
        while position < len(line):
            token = RULE_KEY.match(line, position)
            if token is None:
                raise ValueError(f"cannot read the rule line at column {position}: {line}")
            position = token.end()
            key, operator, pattern = token.groups()
            if operator not in ("==", "!="):
                tags |= (key, operator, pattern) == ("TAG", "+=", "uaccess")
                continue
            if key not in values:
                raise ValueError(f"cannot judge the match key {key} in: {line}")
            matched = any(
                fnmatch.fnmatchcase(values[key], udev_glob(alternative)) for alternative in pattern.split("|")
            )
            holds &= matched if operator == "==" else not matched
        if holds and tags:
            return True
    return False


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
    # The guest's own keyboard (i8042) is root's: this user cannot read it.
    keyboard = [entry.get("readable") for entry in entries if entry.get("name") == "AT Translated Set 2 keyboard"]
    checks.equal("--json: a node this user cannot read", keyboard, [False])
    entry = by_node.get(linked.node, {})
    checks.equal("--json: stable paths", entry.get("stable_paths"), linked.links)

    rule = user.run([str(binary), "devices", "--udev-rule"])
    checks.equal("--udev-rule: exit status", rule.returncode, 0)
    text = rule.stdout + rule.stderr
    checks.check("--udev-rule: uaccess", 'TAG+="uaccess"' in rule.stdout, rule.stdout)
    checks.check(
        "--udev-rule: where it goes", re.search(r"/etc/udev/rules\.d/([0-6][0-9]|7[0-2])-", text) is not None, text
    )
    checks.check("--udev-rule: how to apply it", "udevadm control --reload" in text and "udevadm trigger" in text, text)
    for device in configured:
        checks.check(f"--udev-rule: gives {device.name}", udev_rule_gives(rule.stdout, device), rule.stdout)
    for device in others:
        checks.check(f"--udev-rule: not {device.name}", not udev_rule_gives(rule.stdout, device), rule.stdout)
