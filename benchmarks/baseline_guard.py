#!/usr/bin/env python3
"""The peer baseline: the guard a Linux user would write with pulsectl-asyncio.

Holds the default sink at the volume it has when this starts. On every change event of that sink it reads
the sink; if the volume (or mute) is not the held one, it tells every subscriber of a Unix socket about a
press (the same JSON lines as volume-guard: `{"cmd":"subscribe"}` in, `subscribed` then `press` lines out)
and sets the sink back.

    baseline_guard.py --socket PATH        # the audio server is PULSE_SERVER's, as for any libpulse client
"""
import argparse
import asyncio
import datetime
import json
import math
import os
import signal

import pulsectl_asyncio


class Guard:
    def __init__(self, socket_path):
        self.socket_path = socket_path
        self.subscribers = set()
        self.seq = 0

    async def serve_client(self, reader, writer):
        try:
            while line := await reader.readline():
                try:
                    request = json.loads(line)
                except ValueError:
                    request = None
                if isinstance(request, dict) and request.get("cmd") == "subscribe":
                    self.send(writer, {"type": "subscribed", "last_seq": self.seq})
                    self.subscribers.add(writer)
                else:
                    self.send(writer, {"type": "error", "code": "unknown-command", "message": "only subscribe"})
        except ConnectionError:
            pass
        finally:
            self.subscribers.discard(writer)
            writer.close()

    @staticmethod
    def send(writer, message):
        writer.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def publish(self, direction, sink):
        self.seq += 1
        now = datetime.datetime.now(datetime.timezone.utc)
        press = {"type": "press", "seq": self.seq, "direction": direction, "count": 1, "sink": sink,
                 "time": now.isoformat(timespec="milliseconds").replace("+00:00", "Z")}
        for writer in list(self.subscribers):
            if writer.is_closing():
                self.subscribers.discard(writer)
            else:
                self.send(writer, press)

    async def run(self):
        async with pulsectl_asyncio.PulseAsync("baseline-guard") as pulse:
            server = await pulse.server_info()
            sink = await pulse.get_sink_by_name(server.default_sink_name)
            held, held_mute = sink.volume, sink.mute
            held_level = max(held.values)
            if os.path.exists(self.socket_path):
                os.unlink(self.socket_path)
            server_socket = await asyncio.start_unix_server(self.serve_client, path=self.socket_path)
            print(f"guarding {sink.name} at {held_level:.2%}", flush=True)
            try:
                async for event in pulse.subscribe_events("sink"):
                    if event.t != "change" or event.index != sink.index:
                        continue
                    info = await pulse.sink_info(sink.index)
                    level = max(info.volume.values)
                    moved = not math.isclose(level, held_level, abs_tol=0.001)
                    muted = info.mute != held_mute
                    if moved or muted:
                        self.publish(("up" if level > held_level else "down") if moved else "mute", info.name)
                        if moved:
                            await pulse.volume_set(info, held)
                        if muted:
                            await pulse.mute(info, held_mute)
            finally:
                server_socket.close()
                os.unlink(self.socket_path)


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", required=True)
    args = parser.parse_args()
    task = asyncio.current_task()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, task.cancel)
    try:
        await Guard(args.socket).run()
    except asyncio.CancelledError:
        pass


if __name__ == "__main__":
    asyncio.run(main())
