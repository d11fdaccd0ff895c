#!/usr/bin/env python3
"""A volume-guard client in Python, on the volume_guard package (clients/python).

Prints each press (and each release of an input device's key) as it happens, like `volume-guard
watch`, and never misses a press that the daemon still has: the package remembers the seq of the last
press and, after any reconnect, subscribes with "since" so that the presses missed meanwhile are
replayed first, also from a restarted daemon.

usage: examples/client.py [--socket PATH] [--since SEQ]

From a checkout, without installing the package: PYTHONPATH=clients/python/src examples/client.py
"""

import argparse
import logging
import sys

try:
    from volume_guard import Client, VolumeGuardError
except ImportError:
    sys.exit("examples/client.py: install the client first (pip install ./clients/python), "
             "or run it with PYTHONPATH=clients/python/src")


def key(event):
    """A volume key's direction, else the device's key (KEY_ENTER, ...), which has none."""
    return event.get("direction") or event.get("key", "?")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", help="the daemon's socket (default: as volume-guard finds it)")
    parser.add_argument("--since", type=int, help="first print the presses after this seq that the daemon still has")
    arguments = parser.parse_args()
    # The package tells of reconnections through logging.
    logging.basicConfig(format="-- %(message)s", level=logging.INFO)

    for event in Client(arguments.socket).presses(since=arguments.since, gestures=False, states=True):
        if event["type"] == "press":
            times = f" x{event['count']}" if event["count"] > 1 else ""
            where = event.get("sink") or event.get("device", "")  # the sink, or the input device
            print(f"{event['time']}  {key(event)}{times}  {where}  #{event['seq']}", flush=True)
        elif event["type"] == "release":
            held = f"held {event['held_ms']} ms" + ("" if event["cause"] == "key-up" else f" ({event['cause']})")
            print(f"{event['time']}  release {key(event)}  {event['device']}  {held}  #{event['seq']}", flush=True)
        elif event["type"] == "state":
            print(f"-- {event['state']}" + (f" ({event['sink']})" if event.get("sink") else ""), flush=True)
        elif event["type"] == "restart":
            print("-- the daemon was restarted; replaying its presses from the first", file=sys.stderr)
        elif event["type"] == "gap":
            print(f"-- some presses after #{event['since']} are no longer in the daemon's history", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except VolumeGuardError as error:
        sys.exit(f"-- error {error.code}: {error.message}")
    except KeyboardInterrupt:
        pass
