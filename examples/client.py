#!/usr/bin/env python3
"""A volume-guard client in plain Python (standard library only).

Prints each press as it happens, like `volume-guard watch`, and never misses one that the daemon
still has: it remembers the seq of the last press it printed and, after any reconnect, subscribes
with "since" so that the presses it missed meanwhile are replayed first.

usage: examples/client.py [--socket PATH] [--since SEQ]
"""

import argparse
import json
import os
import socket
import sys
import time


def default_socket():
    """The daemon's default: $VOLUME_GUARD_SOCKET, else $XDG_RUNTIME_DIR/volume-guard.sock."""
    if os.environ.get("VOLUME_GUARD_SOCKET"):
        return os.environ["VOLUME_GUARD_SOCKET"]
    runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/tmp/volume-guard-{os.getuid()}"
    return os.path.join(runtime, "volume-guard.sock")


def messages(connection):
    """Yields each line the daemon sends, decoded, until it closes the connection."""
    pending = b""
    while chunk := connection.recv(65536):
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            yield json.loads(line)


def follow(path, since):
    """Subscribes once and prints until the connection ends; returns the seq to resume after.

    `since` is None for live presses only (the very first connection), else the last seq printed.
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(path)
        request = {"cmd": "subscribe", "id": "client.py"}
        if since is not None:
            request["since"] = since
        connection.sendall(json.dumps(request).encode() + b"\n")
        for message in messages(connection):
            kind = message["type"]
            if kind == "subscribed":
                if since is not None and message["last_seq"] < since:
                    # Seqs count from 1 in each daemon: this is a new one. Start over from its first press.
                    print("-- the daemon was restarted; replaying its presses from the first", file=sys.stderr)
                    return 0
                if message.get("gap"):
                    print(f"-- some presses after #{since} are no longer in the daemon's history", file=sys.stderr)
                if since is None:
                    since = message["last_seq"]
            elif kind == "press":
                times = f" x{message['count']}" if message["count"] > 1 else ""
                print(f"{message['time']}  {message['direction']}{times}  {message['sink']}  #{message['seq']}", flush=True)
                since = message["seq"]
            elif kind == "state":
                print(f"-- {message['state']}" + (f" ({message['sink']})" if message.get("sink") else ""), flush=True)
            elif kind == "error":
                print(f"-- error {message['code']}: {message['message']}", file=sys.stderr)
    print("-- the daemon closed the connection; reconnecting", file=sys.stderr)
    return since


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", default=default_socket(), help="the daemon's socket")
    parser.add_argument("--since", type=int, help="first print the presses after this seq that the daemon still has")
    arguments = parser.parse_args()

    since, delay = arguments.since, 0.1
    while True:
        try:
            since = follow(arguments.socket, since)
            delay = 0.1
        except (FileNotFoundError, ConnectionRefusedError, ConnectionResetError):
            # No daemon (yet, or for now): try again, backing off to one attempt every 2 s.
            time.sleep(delay)
            delay = min(delay * 2, 2.0)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
