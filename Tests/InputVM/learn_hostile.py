"""`sudo volume-guard learn --write` against a hostile user's home: every name learn reads, makes or writes there
may be a symlink to a file of root's, a FIFO or /dev/zero. learn does that work as the user, so root's files
stay as they were (content, owner, mode), and learn either fails cleanly or writes only the user's files.

The guest has no sudo (learn_command): learn runs as root with the variables sudo sets. Root's files are on the
tmpfs (the guest's root is read-only), root's own and mode 0600 or 0755 as in /root and /etc.

    scripts/input-vm env VOLUME_GUARD_BINARY=... /usr/bin/python3 Tests/InputVM/learn_hostile.py

runs these alone; suite.py runs them with the rest.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

from harness import REPOSITORY, SCRATCH, WAIT, Account, Checks, executable
from learn_command import finish, listen
from uhid_remote import BluetoothRemote

ADDRESS = "2a:07:98:10:34:a0"
SECRET = "root's own\n"


class RootFiles:
    """Files of root's that a hostile user points symlinks at, and what each was, to find it untouched."""

    def __init__(self, place: Path) -> None:
        self.place = place
        place.mkdir(mode=0o755)
        self.secret = place / "secret"
        self.secret.write_text(SECRET)
        self.secret.chmod(0o600)
        self.directory = place / "etc"
        self.directory.mkdir(mode=0o755)
        self.readable = self.directory / "config.toml"
        self.readable.write_text('mode = "always"\n')
        self.readable.chmod(0o644)
        self.empty = place / "empty"
        self.empty.mkdir(mode=0o755)
        self.before = self.snapshot()

    def snapshot(self) -> dict[str, tuple[int, int, int, str | None]]:
        """Every file and directory under the place: owner, group, mode and content."""
        seen = {}
        for path in sorted([self.place, *self.place.rglob("*")]):
            info = path.lstat()
            seen[str(path)] = (info.st_uid, info.st_gid, info.st_mode, path.read_text() if path.is_file() else None)
        return seen

    def untouched(self, checks: Checks) -> None:
        checks.equal("root's files untouched: content, owner, mode, and nothing new", self.snapshot(), self.before)


def learn_hostile(checks: Checks, binary: Path) -> None:
    user = Account("nobody", "hostile")
    root = RootFiles(SCRATCH / "root-owned")
    sudo = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "HOME": "/root"}
    sudo |= {"SUDO_UID": str(user.uid), "SUDO_GID": str(user.gid), "SUDO_USER": user.user}
    remote = BluetoothRemote("AB Shutter3", ADDRESS)

    def plant(path: Path, target: Path | str) -> Path:
        """A symlink of the user's at `path`, its directories the user's too."""
        path.parent.mkdir(parents=True, exist_ok=True)
        os.chown(path.parent, user.uid, user.gid)
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        elif path.is_symlink() or path.exists():
            path.unlink()
        path.symlink_to(target)
        os.lchown(path, user.uid, user.gid)
        return path

    def command(config: Path) -> list[str]:
        return [str(binary), "learn", "--write", "--count", "1", "--config", str(config), "--socket", str(user.root / "none.sock")]

    def learn_pressed(config: Path) -> tuple[int | None, str]:
        """learn run as sudo runs it, the remote's volume up pressed once it listens; its exit status and output."""
        learn, lines = listen(command(config), env=sudo, stdin=subprocess.DEVNULL)
        remote.press("KEY_VOLUMEUP")
        output = finish(learn, lines)
        return learn.returncode, output

    def learn_at_start(config: Path) -> tuple[int, str, float]:
        """learn run as sudo runs it, expected to end before it listens; its exit status, output and time taken."""
        began = time.monotonic()
        ended = subprocess.run(command(config), env=sudo, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=WAIT * 2)
        return ended.returncode, ended.stdout + ended.stderr, time.monotonic() - began

    try:
        remote.create()
        with checks.scenario("hostile home: the config file a symlink to a file of root's"):
            config = plant(user.config / "volume-guard" / "config.toml", root.secret)
            status, output, _ = learn_at_start(config)
            checks.equal("exit status: a mistake in the config file", status, 2)
            checks.check("says it cannot be read", "Permission denied" in output, output)
            checks.check("nothing of root's file shown", SECRET.strip() not in output, output)
            root.untouched(checks)
        with checks.scenario("hostile home: the config directory a symlink to a directory of root's"):
            config = user.config / "volume-guard" / "config.toml"
            config.unlink()
            plant(user.config / "volume-guard", root.directory)
            status, output = learn_pressed(config)
            checks.equal("exit status: the file cannot be written", status, 2)
            checks.check("says so", "cannot be written" in output or "Permission denied" in output, output)
            root.untouched(checks)
            (user.config / "volume-guard").unlink()
        with checks.scenario("hostile home: ~/.config a symlink to a directory of root's"):
            dot_config = plant(user.home / ".config", root.empty)
            config = dot_config / "volume-guard" / "config.toml"
            status, output = learn_pressed(config)
            checks.equal("exit status: the directory cannot be made", status, 2)
            checks.check("says so", "cannot make" in output, output)
            root.untouched(checks)
        with checks.scenario("hostile home: the backup's names symlinks to a file of root's"):
            config = user.config / "volume-guard" / "config.toml"
            config.parent.mkdir(exist_ok=True)
            os.chown(config.parent, user.uid, user.gid)
            config.write_text('mode = "always"\n')
            os.chown(config, user.uid, user.gid)
            config.chmod(0o600)
            for name in ("config.toml.bak", "config.toml.bak.1"):
                plant(config.parent / name, root.secret)
            status, output = learn_pressed(config)
            checks.equal("exit status", status, 0)
            root.untouched(checks)
            checks.check("the symlinks stay", all((config.parent / n).is_symlink() for n in ("config.toml.bak", "config.toml.bak.1")))
            backup = config.parent / "config.toml.bak.2"
            checks.equal("the backup at the first free name", backup.read_text() if backup.exists() else None, 'mode = "always"\n')
            info, kept = config.stat(), backup.stat() if backup.exists() else None
            checks.equal("the file keeps its mode and owner", (info.st_mode & 0o777, info.st_uid), (0o600, user.uid))
            checks.equal("the backup its mode too", kept and (kept.st_mode & 0o777, kept.st_uid), (0o600, user.uid))
            checks.check("the learned settings written", 'source = "input"' in config.read_text(), config.read_text())
        with checks.scenario("hostile home: a symlinked config of the user's own has its target written"):
            target = user.home / "dotfiles" / "volume-guard.toml"
            target.parent.mkdir()
            os.chown(target.parent, user.uid, user.gid)
            target.write_text('mode = "always"\n')
            os.chown(target, user.uid, user.gid)
            link = plant(user.config / "volume-guard" / "linked.toml", target)
            status, output = learn_pressed(link)
            checks.equal("exit status", status, 0)
            checks.check("the symlink stays", link.is_symlink() and os.readlink(link) == str(target))
            checks.check("its target written", 'source = "input"' in target.read_text(), target.read_text())
            checks.equal("the target is the user's", target.stat().st_uid, user.uid)
            root.untouched(checks)
        with checks.scenario("hostile home: a FIFO and /dev/zero as the config file"):
            fifo = user.config / "volume-guard" / "fifo.toml"
            os.mkfifo(fifo)
            os.chown(fifo, user.uid, user.gid)
            status, output, took = learn_at_start(fifo)
            checks.equal("a FIFO no one writes: exit status", status, 2)
            checks.check("refused as a pipe that did not end, after a bounded wait", "did not end" in output and took < WAIT, (took, output))
            zero = plant(user.config / "volume-guard" / "zero.toml", "/dev/zero")
            status, output, took = learn_at_start(zero)
            checks.equal("/dev/zero: exit status", status, 2)
            checks.check("refused at once, not read", "not a regular file" in output and took < WAIT, (took, output))
            root.untouched(checks)
    finally:
        remote.destroy()


if __name__ == "__main__":
    SCRATCH.mkdir(mode=0o755)
    suite = Checks()
    binary = Path(os.environ.get("VOLUME_GUARD_BINARY") or REPOSITORY / ".build" / "debug" / "volume-guard")
    learn_hostile(suite, executable(binary))
    sys.exit(suite.result())
