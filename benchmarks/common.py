"""What every part of the benchmark shares: the repository, the held level and the step, the sample sizes of
a full and a quick run, the guards and the client patterns, the log line and the exception of a failed run."""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HELD = 32768       # 50 % of PA_VOLUME_NORM
STEP = 3277        # 5 %

FULL = dict(floor=1000, latency=1000, cpu_presses=500, clients=1000, fanout=50, idle=20.0, steps=200)
QUICK = dict(floor=100, latency=100, cpu_presses=100, clients=1000, fanout=10, idle=3.0, steps=50)

GUARDS = ("volume-guard", "baseline")

# The client patterns of the fidelity table: every step is one key step up.
PATTERNS = {
    "probe": "C probe, back to back: read, set +5 %, wait for the ack, next",
    "pulsectl": "pulsectl (Python), back to back: read the sink, set it +5 %, wait for the ack, next",
    "pactl": "`pactl set-sink-volume SINK +1%`, one process after another",
    "scroll": "C probe, a +5 % step every 8 ms (a 125 Hz scroll wheel)",
    "keys": "C probe, a +5 % step every 20 ms (50 Hz key repeat)",
}


def at_held(raw):
    """Whether a raw volume reads as the held level (within 8 of HELD)."""
    return abs(raw - HELD) <= 8


def log(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


class Failure(Exception):
    pass
