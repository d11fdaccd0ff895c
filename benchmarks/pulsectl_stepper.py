#!/usr/bin/env python3
"""Relative volume steps made the way a Python program makes them with pulsectl.

For each step: read the default sink, set it one step higher than what was read, and wait for the server's
acknowledgement (pulsectl's calls block until then); then the next, back to back. Prints
{"made": N, "highest_raw": H, "seconds": S} on stdout: the sets the server acknowledged, and the highest
level read (pulsectl caps what it sets at PA_VOLUME_UI_MAX, 152.5 %).

    pulsectl_stepper.py --steps 200 --step 0.05 --limit-s 60    # the server is PULSE_SERVER's
"""
import argparse
import json
import time

import pulsectl

PA_VOLUME_NORM = 65536   # libpulse's 100 %


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--step", type=float, default=0.05, help="fraction of 100 %%")
    parser.add_argument("--limit-s", type=float, default=60, help="stop stepping after this long")
    args = parser.parse_args()
    made = highest = 0
    started = time.monotonic()
    with pulsectl.Pulse("bench-pulsectl-stepper") as pulse:
        name = pulse.server_info().default_sink_name
        while made < args.steps and time.monotonic() - started < args.limit_s:
            sink = pulse.get_sink_by_name(name)
            highest = max(highest, round(max(sink.volume.values) * PA_VOLUME_NORM))
            pulse.volume_change_all_chans(sink, args.step)
            made += 1
    print(json.dumps({"made": made, "highest_raw": highest, "seconds": round(time.monotonic() - started, 3)}))


if __name__ == "__main__":
    main()
