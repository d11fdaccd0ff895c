"""A subscriber of the benchmark's own on a guard's socket, and the tally of the presses it received."""
import json
import socket
import threading
import time

from common import Failure


class Subscriber:
    """One client subscribed to a guard's presses, reading them on a thread of its own."""

    def __init__(self, socket_path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(5)
        self.sock.connect(socket_path)
        self.sock.sendall(b'{"cmd":"subscribe","gestures":false}\n')
        self.presses = []
        self.subscribed = threading.Event()
        self.last_arrival = time.monotonic()
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()
        if not self.subscribed.wait(5):
            self.close()
            raise Failure("a subscriber was not answered `subscribed` within 5 s")

    def read(self):
        self.sock.settimeout(None)
        data = b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            data += chunk
            *lines, data = data.split(b"\n")
            for line in lines:
                message = json.loads(line)
                if message.get("type") == "subscribed":
                    self.subscribed.set()
                elif message.get("type") == "press":
                    self.presses.append(message)
                    self.last_arrival = time.monotonic()

    def settle(self, quiet=1.0, limit=10.0):
        """Waits until no press has come for `quiet` seconds (at most `limit`)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and time.monotonic() - self.last_arrival < quiet:
            time.sleep(0.05)

    def close(self):
        self.sock.shutdown(socket.SHUT_RDWR)   # wakes the reader's recv(), which close() alone does not
        self.reader.join(5)
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def tally(presses):
    """Key steps reported, by direction, and gaps in the sequence numbers (lines a slow reader lost)."""
    steps = {"up": 0, "down": 0, "mute": 0}
    for press in presses:
        steps[press["direction"]] += press.get("count", 1)
    gaps = sum(1 for a, b in zip(presses, presses[1:]) if b["seq"] != a["seq"] + 1)
    return steps, gaps
