"""firmware_bridge: the serial link to the partition-screen controller (see docs/protocol.md).

* :mod:`firmware_bridge.screen` - :class:`ScreenController`, the typed API the project uses;
* :mod:`firmware_bridge.link` - the reconnecting, reliable pyserial link under it;
* :mod:`firmware_bridge.firmware` - the controller firmware (MicroPython; also runs on CPython);
* :mod:`firmware_bridge.emulator` - that firmware on a pseudo-terminal, with fault injection;
* :mod:`firmware_bridge.errors` - the package's errors (frame errors: ``firmware.wire.FrameError``).

Each name is imported from the module that defines it.
"""
