"""A test-only pibooth plugin: a camera that needs no hardware, and marks in pibooth's log what the test
waits for. The test's pibooth.cfg loads it by path ([GENERAL] plugins); it is not part of the package.

pibooth's own CameraPlugin (pibooth/plugins/camera_plugin.py) takes the camera this hook returns, gives it
the [CAMERA] settings through `initialize`, and drives it through pibooth.camera.base.BaseCamera's methods.
"""

import pibooth
from PIL import Image
from pibooth.camera.base import BaseCamera
from pibooth.utils import LOGGER


class FakeCamera(BaseCamera):
    """Shows no preview and waits for nothing, so a picture takes only pibooth's own steps."""

    def __init__(self) -> None:
        super().__init__(None)  # no driver behind it

    def preview(self, window, flip=True):
        self._window = window

    def preview_countdown(self, timeout, alpha=60):
        pass

    def preview_wait(self, timeout, alpha=60):
        pass

    def stop_preview(self):
        pass

    def capture(self, effect=None):
        LOGGER.info("fake camera: capture")
        self._captures.append(Image.new("RGB", self.resolution, (200, 60, 40)))

    def _post_process_capture(self, capture_data):
        return capture_data  # already the PIL image get_captures() hands on

    def quit(self):
        pass


@pibooth.hookimpl
def pibooth_setup_camera(cfg):
    return FakeCamera()


@pibooth.hookimpl
def state_wait_enter(app):
    LOGGER.info("fake camera: pibooth waits")


@pibooth.hookimpl
def state_wait_do(app, events):
    # With no printer pibooth only redraws on its print button: this is the test's sign that one came.
    if app.find_print_event(events):
        LOGGER.info("fake camera: the print button, while waiting")
