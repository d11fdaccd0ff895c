"""`pip install ./clients/python` into a fresh virtual environment works, as a user would run it.

pip builds the package with setuptools fetched from PyPI (build isolation), so this test needs PyPI: it
takes some seconds, and fails without it, rather than being skipped.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

# fixtures first: it puts the checkout's package on sys.path.
from fixtures import PACKAGE


class InstallTests(unittest.TestCase):
    def test_pip_installs_the_package_into_a_fresh_venv(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            # A copy, because pip builds in the source tree: the checkout stays as it is.
            source = Path(directory, "source")
            shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
            venv = Path(directory, "venv")
            subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=300)
            python = str(venv / "bin" / "python")
            subprocess.run([python, "-m", "pip", "install", "--quiet", str(source)], check=True, timeout=600)

            probe = (
                "import pathlib, volume_guard\n"
                "print(volume_guard.__file__)\n"
                "print(pathlib.Path(volume_guard.__file__).with_name('py.typed').is_file())\n"
                "print(volume_guard.Client('/run/vg.sock').path)\n"
            )
            # Away from the checkout, so that the installed package is the one imported.
            environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
            run = subprocess.run(
                [python, "-c", probe], cwd=directory, env=environment, capture_output=True, text=True, timeout=60
            )
            self.assertEqual(run.returncode, 0, run.stderr)
            module, typed, path = run.stdout.splitlines()
            self.assertTrue(Path(module).is_relative_to(venv), module)
            self.assertEqual(typed, "True")
            self.assertEqual(path, "/run/vg.sock")


if __name__ == "__main__":
    unittest.main()
