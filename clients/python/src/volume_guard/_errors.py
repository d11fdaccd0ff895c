"""The exceptions: one for every request the daemon refuses, one subclass for no daemon to ask."""

from collections.abc import Iterator
from contextlib import contextmanager


class VolumeGuardError(Exception):
    """The daemon answered a request with an error line.

    `code` is the daemon's stable code (`unknown-command`, `invalid-field`, ... see docs/PROTOCOL.md):
    branch on it, never on `message`, which is meant for people and may change.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class DaemonUnavailable(VolumeGuardError):
    """No daemon answered at `path`: nothing listens there, it closed the connection without a reply
    (it serves only its own user and root), or it did not reply within the client's timeout.

    Its `code` is `daemon-unavailable`, which the daemon itself never sends.
    """

    def __init__(self, path: str, reason: str | OSError) -> None:
        if isinstance(reason, OSError):
            reason = reason.strerror or str(reason) or type(reason).__name__  # asyncio's timeout says nothing
        super().__init__("daemon-unavailable", f"no volume-guard daemon answered at {path} ({reason})")
        self.path = path


@contextmanager
def unavailable_on_failure(path: str, timeout: float | None) -> Iterator[None]:
    """Turns a request that gets no reply (a timeout, or any `OSError`) into `DaemonUnavailable`."""
    try:
        yield
    except TimeoutError:
        raise DaemonUnavailable(path, f"no reply within {timeout} s") from None
    except OSError as error:
        raise DaemonUnavailable(path, error) from error


def whole_line(path: str, line: bytes) -> bytes:
    """`line`, if it is a whole reply: without its newline, the daemon closed the connection first."""
    if not line.endswith(b"\n"):
        raise DaemonUnavailable(path, "it closed the connection without replying")
    return line
