"""The report of a run: the statistics of the samples, the machine it ran on, and the Markdown tables and
details of results.md."""
import math
import os
import platform
import shutil
import subprocess

from common import GUARDS, PATTERNS, REPO, at_held


# ------------------------------------------------------------------ statistics

def percentile(values, p):
    """Nearest rank."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def summary(values_us):
    if not values_us:
        return None
    return {"n": len(values_us), "p50_ms": percentile(values_us, 50) / 1000, "p99_ms": percentile(values_us, 99) / 1000,
            "max_ms": max(values_us) / 1000}


# ------------------------------------------------------------------ the machine

def machine():
    def run(command):
        try:
            return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  timeout=30).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return "?"
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break

    def package_version(name):
        try:
            from importlib.metadata import version
            return version(name)
        except Exception:
            return "?"
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "kernel": platform.release(),
        "os": run(["sh", "-c", ". /etc/os-release && echo $PRETTY_NAME"]),
        "swift": run(["swift", "--version"]).splitlines()[0] if shutil.which("swift") else "?",
        "libpulse": run(["pkg-config", "--modversion", "libpulse"]),
        "pipewire": run(["pipewire", "--version"]).splitlines()[-1],
        "wireplumber": run(["wireplumber", "--version"]).splitlines()[-1],
        "python": platform.python_version(),
        "pulsectl": package_version("pulsectl"),
        "pulsectl-asyncio": package_version("pulsectl-asyncio"),
        "commit": run(["git", "-C", REPO, "describe", "--always", "--dirty"]),
    }


# ------------------------------------------------------------------ the report

def mark(ok):
    return " ✓" if ok else " ✗"


def pair(stats):
    return "–" if not stats else f"{stats['p50_ms']:.2f} / {stats['p99_ms']:.2f}"


def mb(kb):
    return f"{kb / 1024:.1f}"


def guard_table(r):
    """One server's figures, volume-guard beside the baseline, with volume-guard against the targets."""
    floor = summary(r["floor"]["event_us"])
    rows = [("the floor: a set's change event at another client (ms, p50 / p99)", "", pair(floor), "")]

    def row(label, target, cell, ok=None):
        rows.append((label, target, cell(r["volume-guard"]) + ("" if ok is None else mark(ok(r["volume-guard"]))),
                     cell(r["baseline"])))

    def press(g):
        return summary(g["latency"]["press_us"])

    row("press: the set → the press line at a subscriber (ms, p50 / p99)", "p50 ≤ floor + 0.3 ms, p99 < 2 ms",
        lambda g: pair(press(g)),
        lambda g: press(g)["p50_ms"] <= floor["p50_ms"] + 0.3 and press(g)["p99_ms"] < 2
        and g["latency"]["missing_press"] == 0)
    row("press − the same set's change event, paired (ms)", "", lambda g: pair(summary(
        [p - e for p, e in zip(g["latency"]["press_us"], g["latency"]["event_us"]) if e >= 0])))
    row("restore: the set → the held level read by another client (ms)", "p99 < 2 ms",
        lambda g: pair(summary(g["latency"]["restore_us"])),
        lambda g: summary(g["latency"]["restore_us"])["p99_ms"] < 2 and g["latency"]["missing_restore"] == 0)
    row("CPU per press, all threads (µs)", "≤ 200 µs (issue 15, eventually)",
        lambda g: f"{g['cpu']['total_us']:.0f}", lambda g: g["cpu"]["total_us"] <= 200)
    row("anonymous memory at rest (MB)", "≤ 4 MB", lambda g: mb(g["memory_rest"]["RssAnon"]),
        lambda g: g["memory_rest"]["RssAnon"] <= 4096)
    row(f"anonymous memory with {r['volume-guard']['fanout']['subscribers']} subscribers (MB)", "≤ 16 MB",
        lambda g: mb(g["fanout"]["while_connected"]["RssAnon"]),
        lambda g: g["fanout"]["while_connected"]["RssAnon"] <= 16384)
    row("RSS at rest / with the subscribers (MB)", "(information)",
        lambda g: f"{mb(g['memory_rest']['VmRSS'])} / {mb(g['fanout']['while_connected']['VmRSS'])}")
    row("idle wakeups per second", "(information)", lambda g: f"{g['idle']['per_second']:.2f}")
    row(f"fan-out: the set → the last of {r['volume-guard']['fanout']['subscribers']} subscribers (ms)",
        "(information)", lambda g: pair(summary(g["fanout"]["last_us"])))
    row("the audio server's CPU per press (µs)", "(information)", lambda g: f"{g['cpu']['server_us']:.0f}")
    lines = ["| figure | target | volume-guard | baseline |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines)


def by_thread_table(results, kinds, key, unit, fmt):
    """volume-guard's figure `key` split by thread kind, one column per server."""
    names = sorted({t for k in kinds for t in results[k]["volume-guard"][key[0]][key[1]]})
    lines = [f"| volume-guard's thread ({unit}) | " + " | ".join(kinds) + " |", "|---|" + "---|" * len(kinds)]
    for name in names:
        lines.append(f"| {name} | " + " | ".join(
            fmt(results[k]["volume-guard"][key[0]][key[1]].get(name, 0)) for k in kinds) + " |")
    return "\n".join(lines)


def fidelity_table(r):
    def cell(f):
        extra = f"**{f['extra']} ⚠**" if f["extra"] else "0"
        return f"{sum(f['reported'].values())} / {f['lost']} / {extra}"
    lines = ["| pattern | made (vg / bl) | volume-guard: reported / lost / extra | its largest count in one press "
             "| baseline: reported / lost / extra |", "|---|---|---|---|---|"]
    for pattern, label in PATTERNS.items():
        vg, bl = r["volume-guard"]["fidelity"][pattern], r["baseline"]["fidelity"][pattern]
        lines.append(f"| {label} | {vg['made']} / {bl['made']} | {cell(vg)} | {vg['largest_count']} | {cell(bl)} |")
    return "\n".join(lines)


def details(results, kinds):
    """The counts behind the figures, and anything odd."""
    out = []
    for kind in kinds:
        r = results[kind]
        floor = r["floor"]
        out.append(f"- {kind} ({r['server']}) floor: {len(floor['event_us'])} samples, missing {floor['missing']}; "
                   f"set acknowledged {pair(summary(floor['ack_us']))} ms; a read's round trip "
                   f"{pair(summary(floor['rtt_us']))} ms")
        for name in GUARDS:
            g = r[name]
            lat, cpu, idle, fan = g["latency"], g["cpu"], g["idle"], g["fanout"]
            out.append(f"- {kind}, {name} (`{g['command']}`): latency {lat['samples']} samples, missing press "
                       f"{lat['missing_press']}, missing restore {lat['missing_restore']}, extra lines "
                       f"{lat['extra_lines']}, recoveries {lat['recoveries']}; CPU run: {cpu['presses']} presses, "
                       f"reported {cpu['reported']}, seq gaps {cpu['seq_gaps']}, process clock "
                       f"{cpu['process_clock_us']:.0f} µs per press, by thread "
                       + ", ".join(f"{k} {v:.0f}" for k, v in sorted(cpu["by_thread_us"].items()))
                       + f" µs, threads {', '.join(cpu['threads'])}; idle {idle['cpu_ms']:.2f} ms of CPU in "
                       f"{idle['seconds']:.0f} s, wakeups/s by thread "
                       + ", ".join(f"{k} {v:.2f}" for k, v in sorted(idle["by_thread_per_second"].items()))
                       + f" ({idle['threads_ended']} threads ended, {idle['threads_started']} started); memory (kB) "
                       f"at start {g['memory_start']}, at rest {g['memory_rest']}, with {fan['subscribers']} "
                       f"subscribers {fan['while_connected']}; fan-out missing {fan['missing_press']}; "
                       f"exit status {g['exit_status']}")
            for pattern, f in g["fidelity"].items():
                highest = f" (highest level read {f['highest_raw'] / 655.36:.0f} %)" if f["highest_raw"] else ""
                final = "held" if at_held(f["final_raw"]) else f["final_raw"]
                out.append(f"  - {pattern}: made {f['made']} in {f['seconds']:.2f} s{highest}, reported "
                           f"{f['reported']} in {f['lines']} lines, seq gaps {f['seq_gaps']}, final level {final}")
    return "\n".join(out)


def render(report):
    results = report["results"]
    kinds = list(results)
    m = report["machine"]
    text = [
        f"volume-guard benchmark, {report['date']}{' (quick)' if report['quick'] else ''}, {report['seconds']:.0f} s, "
        f"at {m['commit']}",
        f"machine: {m['nproc']} × {m['cpu']}, kernel {m['kernel']}, {m['os']}, {m['swift']}",
        f"servers: {', '.join(results[k]['server'] for k in kinds)}; libpulse {m['libpulse']}; "
        f"WirePlumber {m['wireplumber'].split()[-1]}",
        f"baseline: Python {m['python']}, pulsectl {m['pulsectl']}, pulsectl-asyncio {m['pulsectl-asyncio']}",
        f"load average (1, 5, 15 min): {report['load_before']} before, {report['load_after']} after",
    ]
    for kind in kinds:
        r = results[kind]
        text += ["", f"### {kind}", "", f"{r['server']}; load average at its start: {r.get('load', '?')}", "",
                 guard_table(r), "", fidelity_table(r)]
    text += ["", "### CPU per press, by thread", "",
             by_thread_table(results, kinds, ("cpu", "by_thread_us"), "µs per press", lambda v: f"{v:.0f}"),
             "", "### Idle wakeups, by thread", "",
             by_thread_table(results, kinds, ("idle", "by_thread_per_second"), "wakeups per second",
                             lambda v: f"{v:.2f}"),
             "", "### Details", "", details(results, kinds)]
    return "\n".join(text) + "\n"
