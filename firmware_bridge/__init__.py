"""firmware_bridge: the serial link to the partition-screen controller (see docs/protocol.md).

* :mod:`firmware_bridge.screen` - :class:`ScreenController`, the typed API the project uses;
* :mod:`firmware_bridge.link` - the reconnecting, reliable pyserial link under it;
* :mod:`firmware_bridge.firmware` - the controller firmware (MicroPython; also runs on CPython);
* :mod:`firmware_bridge.emulator` - that firmware on a pseudo-terminal, with fault injection.
"""

from .errors import FirmwareBridgeError, FrameError, LinkError, QueryTimeoutError, VersionMismatchError
from .firmware.wire import PROTOCOL_VERSION

__all__ = [
    "PROTOCOL_VERSION",
    "FirmwareBridgeError",
    "FrameError",
    "LinkError",
    "QueryTimeoutError",
    "ScreenButtonEvent",
    "ScreenController",
    "ScreenEmulator",
    "VersionMismatchError",
]


def __getattr__(name: str):  # lazy: importing the package must not start pyserial/emulator imports
    if name in ("ScreenController", "ScreenButtonEvent"):
        from . import screen

        return getattr(screen, name)
    if name == "ScreenEmulator":
        from .emulator import ScreenEmulator

        return ScreenEmulator
    raise AttributeError(name)
