"""Where the client looks for the daemon when given no path: the CLI's rules."""

import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

# fixtures first: it puts the checkout's package on sys.path.
from fixtures import binary

from volume_guard import AsyncClient, Client, default_socket_path


class DefaultSocketPathTests(unittest.TestCase):
    def setUp(self) -> None:
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        self.config_home = directory.name
        # No config file unless a test writes one.
        self.environ = {"XDG_CONFIG_HOME": self.config_home, "XDG_RUNTIME_DIR": "/run/user/1234"}

    def write_config(self, text: str) -> str:
        path = Path(self.config_home, "volume-guard", "config.toml")
        path.parent.mkdir()
        path.write_text(text)
        return str(path)

    def test_the_runtime_directory(self) -> None:
        self.assertEqual(default_socket_path(self.environ), "/run/user/1234/volume-guard.sock")

    def test_without_a_runtime_directory_a_directory_of_the_users_in_tmp(self) -> None:
        expected = f"/tmp/volume-guard-{os.getuid()}/volume-guard.sock"
        self.assertEqual(default_socket_path({"XDG_CONFIG_HOME": self.config_home}), expected)
        self.assertEqual(default_socket_path(self.environ | {"XDG_RUNTIME_DIR": ""}), expected)

    def test_volume_guard_socket_comes_first(self) -> None:
        self.write_config('socket = "/from/config.sock"\n')
        self.assertEqual(default_socket_path(self.environ | {"VOLUME_GUARD_SOCKET": "/given.sock"}), "/given.sock")

    def test_an_empty_volume_guard_socket_counts_as_unset(self) -> None:
        self.assertEqual(
            default_socket_path(self.environ | {"VOLUME_GUARD_SOCKET": ""}), "/run/user/1234/volume-guard.sock"
        )

    def test_the_config_files_socket_comes_before_the_runtime_directory(self) -> None:
        self.write_config('step = 5\nsocket = "/from/config.sock"\n')
        self.assertEqual(default_socket_path(self.environ), "/from/config.sock")

    def test_the_config_file_is_found_in_home_without_xdg_config_home(self) -> None:
        home = self.config_home
        config = Path(home, ".config", "volume-guard", "config.toml")
        config.parent.mkdir(parents=True)
        config.write_text('socket = "/from/home.sock"\n')
        self.assertEqual(default_socket_path({"HOME": home, "XDG_RUNTIME_DIR": "/run/user/1234"}), "/from/home.sock")

    def test_a_config_file_with_a_mistake_raises_naming_it(self) -> None:
        for text in ["socket = \n", "socket = 3\n", 'socket = ""\n']:
            path = Path(self.write_config(text))
            with self.subTest(text=text), self.assertRaisesRegex(ValueError, re.escape(str(path))):
                default_socket_path(self.environ)
            path.unlink()
            path.parent.rmdir()

    def test_the_clients_use_it_without_a_path(self) -> None:
        with mock.patch.dict(os.environ, {"VOLUME_GUARD_SOCKET": "/given.sock"}):
            self.assertEqual(Client().path, "/given.sock")
            self.assertEqual(AsyncClient().path, "/given.sock")
        self.assertEqual(Client(Path("/a/path.sock")).path, "/a/path.sock")


class CommandLineAgreementTests(unittest.TestCase):
    """The CLI itself, asked where it looks (`status` with no daemon names the path): the same place."""

    def test_the_cli_looks_where_the_client_does(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            Path(directory, "with-config", "volume-guard").mkdir(parents=True)
            Path(directory, "with-config", "volume-guard", "config.toml").write_text('socket = "/from/config.sock"\n')
            base = {"XDG_CONFIG_HOME": f"{directory}/none", "XDG_RUNTIME_DIR": f"{directory}/runtime"}
            # Not without XDG_RUNTIME_DIR: a daemon of the user's may be serving /tmp/volume-guard-UID.
            environments = [
                base,
                base | {"VOLUME_GUARD_SOCKET": f"{directory}/given.sock"},
                base | {"VOLUME_GUARD_SOCKET": ""},
                base | {"XDG_CONFIG_HOME": f"{directory}/with-config"},
            ]
            inherited = {key: value for key, value in os.environ.items() if key != "VOLUME_GUARD_SOCKET"}
            for environ in environments:
                with self.subTest(environ=environ):
                    run = subprocess.run(
                        [binary(), "status"], env=inherited | environ, capture_output=True, text=True, timeout=60
                    )
                    match = re.search(r"no daemon is running at (\S+)", run.stderr)
                    self.assertIsNotNone(match, run.stderr)
                    assert match is not None
                    self.assertEqual(match[1], default_socket_path(inherited | environ))


if __name__ == "__main__":
    unittest.main()
