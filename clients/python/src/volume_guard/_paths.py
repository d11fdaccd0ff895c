"""Where the daemon's socket is, found by the same rules as the `volume-guard` commands.

A client that used other rules would look for the daemon where it is not, so these follow the CLI step
by step, down to treating an empty variable as unset.
"""

import os
import tomllib
from collections.abc import Mapping


def default_socket_path(environ: Mapping[str, str] | None = None) -> str:
    """The socket `volume-guard status` talks to when given no `--socket`.

    `$VOLUME_GUARD_SOCKET`, else the config file's `socket` (the file is
    `$XDG_CONFIG_HOME/volume-guard/config.toml`, `~/.config/...` without it), else
    `$XDG_RUNTIME_DIR/volume-guard.sock`, else `/tmp/volume-guard-UID/volume-guard.sock`.

    `environ` defaults to `os.environ`. A config file that is not TOML, or whose `socket` is not a
    non-empty string, raises `ValueError` naming the file, as the CLI refuses it too.
    """
    environ = os.environ if environ is None else environ
    if given := environ.get("VOLUME_GUARD_SOCKET"):
        return given
    if configured := _configured_socket(_config_file(environ)):
        return configured
    runtime = environ.get("XDG_RUNTIME_DIR") or f"/tmp/volume-guard-{os.getuid()}"
    return f"{runtime}/volume-guard.sock"


def _config_file(environ: Mapping[str, str]) -> str:
    config_home = environ.get("XDG_CONFIG_HOME") or environ.get("HOME", "/") + "/.config"
    return f"{config_home}/volume-guard/config.toml"


def _configured_socket(path: str) -> str | None:
    """The config file's `socket`; None when the file or the key is absent."""
    try:
        with open(path, "rb") as file:
            config = tomllib.load(file)
    except FileNotFoundError:
        return None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: {error}") from error
    socket = config.get("socket")
    if socket is not None and not (isinstance(socket, str) and socket):
        raise ValueError(f"{path}: socket must be a path (a non-empty string)")
    return socket
