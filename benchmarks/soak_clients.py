"""The soak's clients of the daemon: a steady HTTP event stream (GET /events) that reads every event, and the
crowd: hundreds of socket subscribers and event streams coming and going, some of which never read.

Every client that reads checks what it gets: the `subscribed` reply, then press seqs one by one from the
right place (the reply's last_seq, or the `since` it asked for), never one twice or one skipped. What goes
wrong is kept as a list of problems for benchmarks/soak to report. Standard library only.
"""
import json
import selectors
import socket
import struct
import threading
import time


class ChunkDecoder:
    """HTTP/1.1 chunked transfer coding, incrementally: feed() bytes, get the body's bytes back."""

    def __init__(self):
        self.buffer = b""
        self.left = None   # bytes left of the current chunk's data (0: its CRLF is next); None: a size line
        self.done = False

    def feed(self, data):
        self.buffer += data
        out = []
        while not self.done:
            if self.left is None:
                end = self.buffer.find(b"\r\n")
                if end < 0:
                    break
                size = int(self.buffer[:end].split(b";")[0], 16)
                self.buffer = self.buffer[end + 2:]
                if size == 0:
                    self.done = True
                    break
                self.left = size
            elif self.left:
                take = self.buffer[:self.left]
                if not take:
                    break
                out.append(take)
                self.buffer = self.buffer[len(take):]
                self.left -= len(take)
            else:   # the chunk's own CRLF
                if len(self.buffer) < 2:
                    break
                self.buffer = self.buffer[2:]
                self.left = None
        return b"".join(out)


class Checker:
    """What one reading client received: the `subscribed` reply, then presses with consecutive seqs."""

    def __init__(self, since=None):
        self.since = since
        self.subscribed = False
        self.expected = None     # the next seq this client must get
        self.any_seq = False     # after a gap: the first press may start anywhere after `since`
        self.seqs = []
        self.problems = []
        self.cut_loose = False

    def message(self, message):
        kind = message.get("type")
        if kind == "subscribed":
            if self.subscribed:
                self.problems.append("a second `subscribed`")
            self.subscribed = True
            last = message.get("last_seq", 0)
            if self.since is None:
                self.expected = last + 1
            elif message.get("gap"):
                self.any_seq = True
            else:
                self.expected = min(self.since, last) + 1
        elif kind == "press":
            seq = message["seq"]
            if not self.subscribed:
                self.problems.append(f"press #{seq} before `subscribed`")
            elif self.any_seq:
                if seq <= self.since:
                    self.problems.append(f"press #{seq} replayed though it is not after since {self.since}")
                self.any_seq = False
            elif seq != self.expected:
                what = "again" if seq < self.expected else f"after #{self.expected - 1}, skipping"
                self.problems.append(f"press #{seq} {what} (expected #{self.expected})")
            self.expected = seq + 1
            self.seqs.append(seq)
        elif kind == "error":
            if message.get("code") == "too-slow":
                self.cut_loose = True
            else:
                self.problems.append(f"error line {message}")


class Parser:
    """Turns a connection's bytes into the daemon's JSON messages: lines on the socket, the `data:` of
    Server-Sent Events after an HTTP head (chunked) on a stream."""

    def __init__(self, http):
        self.http = http
        self.head = http
        self.status = None
        self.chunks = ChunkDecoder() if http else None
        self.buffer = b""

    def feed(self, data):
        messages = []
        if self.head:
            self.buffer += data
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return messages
            head, data = self.buffer[:end], self.buffer[end + 4:]
            self.buffer = b""
            self.head = False
            self.status = int(head.split(b" ", 2)[1])
            if self.status != 200:
                raise ValueError(f"HTTP {self.status}: {head.decode(errors='replace').splitlines()[0]}")
        if self.http:
            self.buffer += self.chunks.feed(data)
            *events, self.buffer = self.buffer.split(b"\n\n")
            for event in events:
                for line in event.split(b"\n"):
                    if line.startswith(b"data: "):
                        messages.append(json.loads(line[6:]))
        else:
            self.buffer += data
            *lines, self.buffer = self.buffer.split(b"\n")
            messages.extend(json.loads(line) for line in lines if line)
        return messages


def http_request(port, target):
    return f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode()


class EventStream:
    """A well-behaved event stream kept open for a whole phase: reads every event, on a thread of its own."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.sendall(http_request(port, "/events?since=0"))
        self.parser = Parser(http=True)
        self.checker = Checker(since=0)
        self.presses = []
        self.ended = None
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()
        deadline = time.monotonic() + 5
        while not self.checker.subscribed and time.monotonic() < deadline and self.ended is None:
            time.sleep(0.01)
        if not self.checker.subscribed:
            raise RuntimeError(f"the event stream was not subscribed within 5 s ({self.ended or 'no reply'})")

    def read(self):
        self.sock.settimeout(None)
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    self.ended = "the daemon ended the stream"
                    return
                for message in self.parser.feed(data):
                    self.checker.message(message)
                    if message.get("type") == "press":
                        self.presses.append(message)
        except (OSError, ValueError) as error:
            self.ended = self.ended or f"{type(error).__name__}: {error}"

    def close(self):
        self.ended = self.ended or "closed"
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.reader.join(5)
        self.sock.close()


# The crowd's kinds of client, and how often each is picked.
KINDS = {
    "socket reader": 30,          # subscribe, read everything
    "socket replay": 10,          # subscribe with a recent `since`, read everything
    "socket never-reader": 15,    # subscribe, never read
    "socket hit-and-run": 5,      # connect, subscribe, close at once
    "socket status": 5,           # ask `status`, read the reply, close
    "stream reader": 20,          # GET /events, read everything
    "stream replay": 5,           # GET /events?since=S
    "stream never-reader": 10,    # GET /events with a small receive buffer, never read
}


class Client:
    def __init__(self, kind, sock, deadline, since):
        self.kind = kind
        self.sock = sock
        self.deadline = deadline
        self.opened = time.monotonic()
        self.reads = "never" not in kind
        self.parser = Parser(http=kind.startswith("stream"))
        self.checker = Checker(since)


class Crowd:
    """Keeps about `target` clients connected, each living a random while, on one thread (selectors).

    `last_seq()` gives the newest seq known (for the replays' `since`). `pause()` closes every client and
    keeps the crowd empty until `resume()`; `stop()` ends the thread."""

    def __init__(self, socket_path, port, last_seq, rng, long_lived=0.05):
        self.socket_path = socket_path
        self.port = port
        self.last_seq = last_seq
        self.rng = rng
        self.long_lived = long_lived
        self.target = 0
        self.clients = {}
        self.selector = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.paused = False
        self.running = True
        self.opened = {kind: 0 for kind in KINDS}
        self.cut_loose = 0             # never-readers the daemon had cut loose when they were closed
        self.readers_checked = 0       # reading clients whose stream was checked
        self.presses_checked = 0
        self.connect_failures = []
        self.problems = []
        self.most = 0
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    # -------------------------------------------------------------- control, from other threads

    def set_target(self, target):
        self.target = target

    def pause(self, timeout=10.0):
        """Closes every client; returns once none is left."""
        self.paused = True
        deadline = time.monotonic() + timeout
        while self.population() and time.monotonic() < deadline:
            time.sleep(0.02)

    def resume(self):
        self.paused = False

    def population(self):
        with self.lock:
            return len(self.clients)

    def stop(self):
        self.pause()
        self.running = False
        self.thread.join(10)

    # -------------------------------------------------------------- the thread

    def loop(self):
        while self.running:
            for key, _ in self.selector.select(0.05):
                self.readable(key.fileobj)
            now = time.monotonic()
            with self.lock:
                clients = list(self.clients.values())
            for client in clients:
                if self.paused or now >= client.deadline:
                    self.close(client, ended_by_us=True)
                elif client.reads and not client.checker.subscribed and now - client.opened > 5:
                    self.problems.append(f"{client.kind}: no `subscribed` reply within 5 s")
                    self.close(client, ended_by_us=True)
            if not self.paused:
                for _ in range(min(12, self.target - self.population())):
                    self.open_one()
            self.most = max(self.most, self.population())

    def lifetime(self, kind):
        if self.rng.random() < self.long_lived:
            return self.rng.uniform(60, 900)
        if "never" in kind:
            return self.rng.uniform(2, 40)
        return self.rng.uniform(0.5, 15)

    def open_one(self):
        kind = self.rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
        since = None
        if "replay" in kind:
            since = max(0, self.last_seq() - self.rng.randint(0, 8))
        try:
            if kind.startswith("socket"):
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(2)
                sock.connect(self.socket_path)
                if kind == "socket status":
                    request = {"cmd": "status", "id": "soak"}
                else:
                    request = {"cmd": "subscribe"}
                    if since is not None:
                        request["since"] = since
                    if self.rng.random() < 0.5:
                        request["gestures"] = False
                sock.sendall(json.dumps(request).encode() + b"\n")
            else:
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                if "never" in kind:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                sock.settimeout(2)
                sock.connect(("127.0.0.1", self.port))
                sock.sendall(http_request(self.port, "/events" if since is None else f"/events?since={since}"))
        except OSError as error:
            self.connect_failures.append(f"{kind}: {error}")
            return
        self.opened[kind] += 1
        if kind == "socket hit-and-run":
            sock.close()
            return
        sock.setblocking(False)
        client = Client(kind, sock, time.monotonic() + self.lifetime(kind), since)
        with self.lock:
            self.clients[sock.fileno()] = client
        if client.reads:
            self.selector.register(sock, selectors.EVENT_READ)

    def readable(self, sock):
        client = self.clients.get(sock.fileno())
        if client is None:
            return
        try:
            data = sock.recv(65536)
        except BlockingIOError:
            return
        except OSError as error:
            self.problems.append(f"{client.kind}: {error}")
            self.close(client, ended_by_us=False)
            return
        if not data:
            self.problems.append(f"{client.kind}: the daemon closed a client that reads, after "
                                 f"{time.monotonic() - client.opened:.1f} s ({len(client.checker.seqs)} presses)")
            self.close(client, ended_by_us=False)
            return
        try:
            for message in client.parser.feed(data):
                client.checker.message(message)
                if client.kind == "socket status" and message.get("type") in ("status", "error"):
                    if message.get("type") != "status" or message.get("id") != "soak":
                        self.problems.append(f"socket status: reply {message}")
                    client.deadline = 0
        except (ValueError, KeyError) as error:
            self.problems.append(f"{client.kind}: unreadable reply: {error}")
            self.close(client, ended_by_us=False)

    def close(self, client, ended_by_us):
        sock = client.sock
        with self.lock:
            self.clients.pop(sock.fileno(), None)
        if client.reads:
            self.selector.unregister(sock)
            checker = client.checker
            if checker.cut_loose:
                self.problems.append(f"{client.kind}: cut loose (`too-slow`) though it reads")
            for problem in checker.problems:
                self.problems.append(f"{client.kind}: {problem}")
            if client.kind != "socket status":
                self.readers_checked += 1
                self.presses_checked += len(checker.seqs)
        elif ended_by_us:
            # A never-reader: has the daemon cut it loose already? Its queue went out as far as the buffers
            # let it; what is left to read ends with `too-slow` and the end of the connection if so.
            tail, ended = b"", False
            try:
                while len(tail) < (8 << 20):
                    chunk = sock.recv(1 << 20)
                    if not chunk:
                        ended = True
                        break
                    tail = (tail + chunk)[-4096:]
            except (BlockingIOError, OSError):
                pass
            if ended or b"too-slow" in tail:
                self.cut_loose += 1
        if sock.family == socket.AF_INET and self.rng.random() < 0.3:
            # Some streams end with a reset rather than a FIN, as a browser tab that is killed.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()

    def summary(self):
        return {"opened": dict(self.opened), "total": sum(self.opened.values()), "most_at_once": self.most,
                "never_readers_cut_loose": self.cut_loose, "readers_checked": self.readers_checked,
                "presses_checked": self.presses_checked, "connect_failures": len(self.connect_failures)}
