"""Input devices that look like real remotes, made with the kernel's uinput, and plain readers of them.

Runs where /dev/uinput exists: in the VM of scripts/input-vm (this machine's own kernel has neither
uinput nor evdev). Python's standard library only, as the guest runs its root's /usr/bin/python3.

    with Remote.ab_shutter3() as shutter:          # its two devices, as a Bluetooth AB Shutter3 makes them
        shutter.consumer.press("KEY_VOLUMEUP")     # down, SYN, up, SYN
        shutter.keyboard.down("KEY_ENTER")
        ...

A device is the kernel's like any other: EVIOCGNAME, EVIOCGID and EVIOCGBIT tell what it was set up with,
and it sends a key's scan code (EV_MSC) before the key as HID devices do. With `repeat` (on for every
preset, as hid-input sets it for keyboards), the kernel itself sends auto-repeats (value 2) while a key is
held. The guest has no udev: its nodes stay root:root 0600 unless a test gives them away, as udev would.
"""

import errno
import fcntl
import os
import select
import struct
import time
from collections.abc import Iterable
from dataclasses import dataclass

# From <linux/input.h>, <linux/input-event-codes.h> and <linux/uinput.h> (x86_64).
EV_SYN, EV_KEY, EV_MSC, EV_REP = 0x00, 0x01, 0x04, 0x14
SYN_REPORT, MSC_SCAN = 0, 4
BUS_USB, BUS_BLUETOOTH = 0x03, 0x05
KEYS = {
    "KEY_ESC": 1,
    "KEY_1": 2,
    "KEY_ENTER": 28,
    "KEY_A": 30,
    "KEY_B": 48,
    "KEY_DOT": 52,
    "KEY_SPACE": 57,
    "KEY_F5": 63,
    "KEY_PAGEUP": 104,
    "KEY_LEFT": 105,
    "KEY_RIGHT": 106,
    "KEY_PAGEDOWN": 109,
    "KEY_MUTE": 113,
    "KEY_VOLUMEDOWN": 114,
    "KEY_VOLUMEUP": 115,
    "KEY_PLAYPAUSE": 164,
    "KEY_CAMERA": 212,
}
KEY_NAMES = {code: name for name, code in KEYS.items()}
# HID usages, sent as MSC_SCAN before each key as hid-input does: keyboard page 0x07, consumer page 0x0c.
SCAN_CODES = {
    "KEY_ESC": 0x70029,
    "KEY_1": 0x7001E,
    "KEY_ENTER": 0x70028,
    "KEY_A": 0x70004,
    "KEY_B": 0x70005,
    "KEY_DOT": 0x70037,
    "KEY_SPACE": 0x7002C,
    "KEY_F5": 0x7003E,
    "KEY_PAGEUP": 0x7004B,
    "KEY_LEFT": 0x70050,
    "KEY_RIGHT": 0x7004F,
    "KEY_PAGEDOWN": 0x7004E,
    "KEY_MUTE": 0xC00E2,
    "KEY_VOLUMEDOWN": 0xC00EA,
    "KEY_VOLUMEUP": 0xC00E9,
    "KEY_PLAYPAUSE": 0xC00CD,
}

EVENT = struct.Struct("qqHHi")
"""struct input_event: a timeval, type, code and value; 24 bytes."""
SETUP = struct.Struct("HHHH80sI")
"""struct uinput_setup: struct input_id (bus, vendor, product, version), the name, ff_effects_max."""


def _ioc(direction: int, kind: str, number: int, size: int) -> int:
    return (direction << 30) | (size << 16) | (ord(kind) << 8) | number


UI_DEV_CREATE = _ioc(0, "U", 1, 0)
UI_DEV_DESTROY = _ioc(0, "U", 2, 0)
UI_DEV_SETUP = _ioc(1, "U", 3, SETUP.size)
UI_SET_EVBIT = _ioc(1, "U", 100, 4)
UI_SET_KEYBIT = _ioc(1, "U", 101, 4)
UI_SET_MSCBIT = _ioc(1, "U", 104, 4)
EVIOCGRAB = _ioc(1, "E", 0x90, 4)


def UI_GET_SYSNAME(length: int) -> int:
    return _ioc(2, "U", 44, length)


def key_code(key: str | int) -> int:
    return key if isinstance(key, int) else KEYS[key]


def key_name(code: int) -> str:
    return KEY_NAMES.get(code, f"KEY_{code}")


@dataclass(frozen=True)
class KeyEvent:
    """One EV_KEY event as a reader gets it: `time` is the kernel's timestamp (CLOCK_REALTIME, seconds)."""

    time: float
    key: str
    value: int


class Device:
    """One uinput device; `create()` makes it, `destroy()` (or the end of a `with`) removes it."""

    def __init__(
        self,
        name: str,
        keys: Iterable[str | int],
        *,
        bus: int = BUS_USB,
        vendor: int = 0,
        product: int = 0,
        version: int = 0x0111,
        repeat: bool = True,
    ) -> None:
        self.name = name
        self.keys = [key_code(key) for key in keys]
        self.bus, self.vendor, self.product, self.version = bus, vendor, product, version
        self.repeat = repeat
        self.node: str | None = None
        """/dev/input/eventN while the device exists."""
        self.sysname: str | None = None
        """The input device's name in sysfs (inputN) while it exists."""
        self.links: list[str] = []
        self._fd: int | None = None

    @property
    def ids(self) -> str:
        """vendor:product as the daemon and `volume-guard devices` write them."""
        return f"{self.vendor:04x}:{self.product:04x}"

    def create(self) -> "Device":
        fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
        try:
            fcntl.ioctl(fd, UI_SET_EVBIT, EV_KEY)
            fcntl.ioctl(fd, UI_SET_EVBIT, EV_MSC)
            fcntl.ioctl(fd, UI_SET_MSCBIT, MSC_SCAN)
            if self.repeat:
                fcntl.ioctl(fd, UI_SET_EVBIT, EV_REP)
            for code in self.keys:
                fcntl.ioctl(fd, UI_SET_KEYBIT, code)
            name = self.name.encode()
            fcntl.ioctl(fd, UI_DEV_SETUP, SETUP.pack(self.bus, self.vendor, self.product, self.version, name, 0))
            fcntl.ioctl(fd, UI_DEV_CREATE)
            sysname = fcntl.ioctl(fd, UI_GET_SYSNAME(64), bytes(64)).rstrip(b"\0").decode()
        except BaseException:
            os.close(fd)
            raise
        self._fd, self.sysname = fd, sysname
        # devtmpfs has made the node by the time UI_DEV_CREATE returns; sysfs says which eventN it is.
        (event,) = [entry for entry in os.listdir(f"/sys/class/input/{sysname}") if entry.startswith("event")]
        self.node = f"/dev/input/{event}"
        return self

    def give_to(self, uid: int, gid: int, mode: int = 0o660) -> None:
        """What udev's rules would do: hands the node to a user."""
        assert self.node is not None
        os.chown(self.node, uid, gid)
        os.chmod(self.node, mode)

    def link(self, path: str) -> str:
        """A stable path to the node (udev makes /dev/input/by-id and by-path; the guest has no udev)."""
        assert self.node is not None
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(os.path.relpath(self.node, os.path.dirname(path)), path)
        self.links.append(path)
        return path

    def destroy(self) -> None:
        """Removes the device, as a remote that disconnects; its stable paths go with it."""
        for path in self.links:
            os.unlink(path)
        self.links = []
        if self._fd is not None:
            fcntl.ioctl(self._fd, UI_DEV_DESTROY)
            os.close(self._fd)
        self._fd = self.node = self.sysname = None

    def send(self, *steps: tuple[str | int, int]) -> float:
        """A frame for each (key, value): the scan code, the key's value (1 down, 2 repeat, 0 up) and
        SYN_REPORT, all in one write. The kernel hands them to the readers within that write: more than a
        reader's buffer holds (64 events for a device like these) overflow it, and it gets SYN_DROPPED.

        Returns the wall-clock time just before the write: the kernel stamps the events during it.
        """
        assert self._fd is not None, f"{self.name} does not exist"
        frames = b""
        for key, value in steps:
            code = key_code(key)
            if (scan := SCAN_CODES.get(key_name(code))) is not None:
                frames += EVENT.pack(0, 0, EV_MSC, MSC_SCAN, scan)
            frames += EVENT.pack(0, 0, EV_KEY, code, value) + EVENT.pack(0, 0, EV_SYN, SYN_REPORT, 0)
        stamp = time.time()
        os.write(self._fd, frames)
        return stamp

    def down(self, key: str | int) -> float:
        return self.send((key, 1))

    def up(self, key: str | int) -> float:
        return self.send((key, 0))

    def press(self, key: str | int) -> float:
        """A tap: down, then up at once."""
        stamp = self.down(key)
        self.up(key)
        return stamp

    def __enter__(self) -> "Device":
        return self.create() if self._fd is None else self

    def __exit__(self, *exception: object) -> None:
        self.destroy()


class Remote:
    """A remote that the kernel shows as one device or several (a HID keyboard part and a consumer part)."""

    def __init__(self, *devices: Device) -> None:
        self.devices = list(devices)

    @classmethod
    def ab_shutter3(cls, name: str = "AB Shutter3", vendor: int = 0x2717, product: int = 0x0040) -> "Remote":
        """The common Bluetooth shutter: Enter on its keyboard part, volume up (iOS) and down on the other."""
        common = {"bus": BUS_BLUETOOTH, "vendor": vendor, "product": product, "version": 0x011B}
        return cls(
            Device(f"{name} Keyboard", ["KEY_ENTER"], **common),
            Device(f"{name} Consumer Control", ["KEY_VOLUMEUP", "KEY_VOLUMEDOWN"], **common),
        )

    @classmethod
    def presenter(cls, name: str = "Presenter USB Receiver", vendor: int = 0x1D57, product: int = 0xAD03) -> "Remote":
        """A slide clicker's USB receiver: page keys, B (black screen), F5 and Esc (start, end the show)."""
        keys = ["KEY_PAGEUP", "KEY_PAGEDOWN", "KEY_B", "KEY_DOT", "KEY_F5", "KEY_ESC", "KEY_LEFT", "KEY_RIGHT"]
        return cls(Device(name, keys, bus=BUS_USB, vendor=vendor, product=product))

    @property
    def keyboard(self) -> Device:
        return self.devices[0]

    @property
    def consumer(self) -> Device:
        return self.devices[1]

    def create(self) -> "Remote":
        for device in self.devices:
            device.create()
        return self

    def give_to(self, uid: int, gid: int, mode: int = 0o660) -> None:
        for device in self.devices:
            device.give_to(uid, gid, mode)

    def destroy(self) -> None:
        for device in self.devices:
            device.destroy()

    def __enter__(self) -> "Remote":
        return self.create()

    def __exit__(self, *exception: object) -> None:
        self.destroy()


class Reader:
    """Another program reading a device, as the desktop does: it gets nothing while the device is grabbed."""

    def __init__(self, node: str) -> None:
        self.node = node
        self._fd = os.open(node, os.O_RDONLY | os.O_NONBLOCK)
        self._pending = b""

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exception: object) -> None:
        self.close()

    def pending(self) -> list[KeyEvent]:
        """The key events already delivered to this reader, without waiting."""
        events: list[KeyEvent] = []
        while True:
            try:
                self._pending += os.read(self._fd, EVENT.size * 64)
            except BlockingIOError:
                break
            except OSError as error:
                if error.errno == errno.ENODEV:  # the device is gone: what it sent before still counts
                    break
                raise
        whole = len(self._pending) - len(self._pending) % EVENT.size
        for offset in range(0, whole, EVENT.size):
            seconds, microseconds, kind, code, value = EVENT.unpack_from(self._pending, offset)
            if kind == EV_KEY:
                events.append(KeyEvent(seconds + microseconds / 1e6, key_name(code), value))
        self._pending = self._pending[whole:]
        return events

    def wait(self, count: int, timeout: float, *, repeats: bool = True) -> list[KeyEvent]:
        """Key events until there are `count` of them or `timeout` seconds passed; without the kernel's
        auto-repeats (value 2) unless `repeats`, as a key held long enough has them."""
        events: list[KeyEvent] = []
        deadline = time.monotonic() + timeout
        while True:
            events += [event for event in self.pending() if repeats or event.value != 2]
            if len(events) >= count or (left := deadline - time.monotonic()) <= 0:
                return events
            select.select([self._fd], [], [], left)

    def grab(self) -> None:
        """Takes the device for this reader alone (EVIOCGRAB), as the daemon does."""
        fcntl.ioctl(self._fd, EVIOCGRAB, 1)

    def ungrab(self) -> None:
        fcntl.ioctl(self._fd, EVIOCGRAB, 0)

    def grab_is_held(self) -> bool:
        """Whether another file holds the device's grab (EVIOCGRAB answers EBUSY).

        When nobody does, this reader takes the grab for an instant and lets it go.
        """
        try:
            self.grab()
        except OSError as error:
            if error.errno == errno.EBUSY:
                return True
            raise
        self.ungrab()
        return False
