"""The bookkeeping of what the benchmark started (audio servers and guards) and its stopping, in memory and
in the state directory that scripts/bench's trap reads."""
import os
import signal
import subprocess

from common import REPO, log


class Cleanup:
    """What is running, in memory and in files under the state directory (scripts/bench's trap reads them
    if this process is killed before its own `finally` runs)."""

    def __init__(self, state_dir):
        self.state_dir = state_dir
        os.makedirs(state_dir, exist_ok=True)
        self.servers = {}    # kind -> env
        self.processes = {}  # name -> Popen

    def record(self, name, text):
        """Writes the record `name` in the state directory."""
        with open(os.path.join(self.state_dir, name), "w") as f:
            f.write(text)

    def forget(self, name):
        """Removes the record `name`, if it is there."""
        try:
            os.unlink(os.path.join(self.state_dir, name))
        except FileNotFoundError:
            pass

    def add_server(self, kind, env):
        self.servers[kind] = env
        self.record(f"server-{kind}",
                    f"AUDIO_SERVER_PGID={env['AUDIO_SERVER_PGID']}\nAUDIO_SERVER_DIR={env['AUDIO_SERVER_DIR']}\n")

    def stop_server(self, kind):
        env = self.servers.pop(kind, None)
        if env is None:
            return
        stop_env = dict(os.environ, AUDIO_SERVER_PGID=env["AUDIO_SERVER_PGID"], AUDIO_SERVER_DIR=env["AUDIO_SERVER_DIR"])
        result = subprocess.run([os.path.join(REPO, "scripts/audio-server"), "--stop"], env=stop_env, timeout=30,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if result.returncode:
            log(f"stopping the {kind} server failed: {result.stderr.strip()}")
        self.forget(f"server-{kind}")

    def add_process(self, name, process):
        self.processes[name] = process
        self.record(f"pid-{name}", f"{process.pid}\n")

    def stop_process(self, name, timeout=5.0):
        """SIGTERM, then SIGKILL after `timeout`; returns the exit status (None if it had to be killed)."""
        process = self.processes.pop(name, None)
        if process is None:
            return None
        status = process.poll()
        if status is None:
            process.send_signal(signal.SIGTERM)
            try:
                status = process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                log(f"{name} did not exit within {timeout:.0f} s of SIGTERM; killing it")
                process.kill()
                process.wait(timeout=5)
                status = None
        self.forget(f"pid-{name}")
        return status

    def all(self):
        for name in list(self.processes):
            self.stop_process(name)
        for kind in list(self.servers):
            self.stop_server(kind)
