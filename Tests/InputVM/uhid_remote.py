"""Bluetooth remotes made with the kernel's uhid, which (unlike uinput) gives a device its `uniq`: the address
BlueZ gives a paired remote, and the only thing that tells two identical remotes apart.

    with BluetoothRemote("AB Shutter3", "2a:07:98:10:34:9c") as remote:
        remote.press("KEY_VOLUMEUP")            # down, then up, as the remote's HID reports

The HID report descriptor is the AB Shutter3's shape: a keyboard application (Enter) and a consumer-control
application (volume up and down), each with a report of its own. hid-generic makes one input device of each,
named as the kernel names the parts of one remote ("AB Shutter3 Keyboard", "AB Shutter3 Consumer Control"),
both with the remote's address as `uniq` and bus 5 (Bluetooth). Needs the hid, hid-generic and uhid modules,
which scripts/input-vm loads.
"""

import os
import struct
import time
from pathlib import Path

UHID_DESTROY, UHID_CREATE2, UHID_INPUT2 = 1, 11, 12
BUS_BLUETOOTH = 0x05
# Report 1: consumer control, volume up (bit 0) and down (bit 1). Report 2: the keyboard's Enter (bit 0). The
# consumer control comes first: hid-input keeps a consumer control that comes after a keyboard in the
# keyboard's device (hidinput_match_application), and this remote is two devices, as the AB Shutter3 is.
DESCRIPTOR = bytes(
    [0x05, 0x0C, 0x09, 0x01, 0xA1, 0x01, 0x85, 0x01, 0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x02]
    + [0x09, 0xE9, 0x09, 0xEA, 0x81, 0x02, 0x95, 0x06, 0x81, 0x03, 0xC0]
    + [0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x85, 0x02, 0x05, 0x07, 0x19, 0x28, 0x29, 0x28, 0x15, 0x00, 0x25, 0x01]
    + [0x75, 0x01, 0x95, 0x01, 0x81, 0x02, 0x95, 0x07, 0x81, 0x03, 0xC0]
)
REPORTS = {"KEY_VOLUMEUP": (1, 0x01), "KEY_VOLUMEDOWN": (1, 0x02), "KEY_ENTER": (2, 0x01)}
"""Each key's report id and bit."""


class BluetoothRemote:
    """One uhid remote; its two input devices exist between `create()` (or entering a `with`) and `destroy()`."""

    def __init__(self, name: str, address: str, vendor: int = 0x2717, product: int = 0x0040) -> None:
        self.name, self.address, self.vendor, self.product = name, address, vendor, product
        self._fd: int | None = None
        self.nodes: list[str] = []
        """The event nodes of its parts, keyboard first."""

    @property
    def ids(self) -> str:
        return f"{self.vendor:04x}:{self.product:04x}"

    def create(self) -> "BluetoothRemote":
        fd = os.open("/dev/uhid", os.O_RDWR)
        request = struct.pack(
            "<128s64s64sHHIIII",
            self.name.encode(),
            b"",
            self.address.encode(),
            len(DESCRIPTOR),
            BUS_BLUETOOTH,
            self.vendor,
            self.product,
            1,
            0,
        ) + DESCRIPTOR.ljust(4096, b"\0")
        os.write(fd, struct.pack("<I", UHID_CREATE2) + request)
        self._fd = fd
        # hid-generic binds and makes the input devices a moment after the create.
        deadline = time.monotonic() + 10
        while len(self.nodes) < 2:
            if time.monotonic() > deadline:
                raise RuntimeError(f"uhid remote {self.address}: its input devices did not appear ({self.nodes})")
            time.sleep(0.05)
            self.nodes = self._find_nodes()
        return self

    def _find_nodes(self) -> list[str]:
        found = []
        for device in Path("/sys/class/input").glob("input*"):
            try:
                if (device / "uniq").read_text().strip() != self.address:
                    continue
                events = [entry.name for entry in device.iterdir() if entry.name.startswith("event")]
                name = (device / "name").read_text().strip()
            except OSError:
                continue
            if events:
                found.append((not name.endswith("Keyboard"), f"/dev/input/{events[0]}"))
        return [node for _, node in sorted(found)]

    def give_to(self, uid: int, gid: int, mode: int = 0o660) -> None:
        """What udev's rules would do: hands the nodes to a user."""
        for node in self.nodes:
            os.chown(node, uid, gid)
            os.chmod(node, mode)

    def down(self, key: str) -> None:
        report, bit = REPORTS[key]
        self._send(report, bit)

    def up(self, key: str) -> None:
        self._send(REPORTS[key][0], 0)

    def press(self, key: str) -> None:
        self.down(key)
        time.sleep(0.05)
        self.up(key)

    def _send(self, report: int, bits: int) -> None:
        assert self._fd is not None
        os.write(self._fd, struct.pack("<IH", UHID_INPUT2, 2) + bytes([report, bits]).ljust(4096, b"\0"))

    def destroy(self) -> None:
        if self._fd is not None:
            os.write(self._fd, struct.pack("<I", UHID_DESTROY).ljust(4380, b"\0"))
            os.close(self._fd)
            self._fd, self.nodes = None, []

    def __enter__(self) -> "BluetoothRemote":
        return self.create()

    def __exit__(self, *exception: object) -> None:
        self.destroy()
