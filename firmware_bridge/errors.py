"""Errors of ``firmware_bridge``; every one also inherits the matching builtin.

Messages are Chinese first, then English, because they reach the referee panel.
"""

from __future__ import annotations


class FirmwareBridgeError(Exception):
    """Base of every error raised by this package (``FrameError`` aside, which is a ValueError
    shared with the firmware)."""


class LinkError(FirmwareBridgeError, ConnectionError):
    """The link cannot carry the request (closed, queue full, wrong protocol version)."""


class LinkClosedError(LinkError):
    """The link or controller was closed by the program."""


class VersionMismatchError(LinkError):
    """The controller speaks another protocol version; the message names both versions."""


class QueryTimeoutError(FirmwareBridgeError, TimeoutError):
    """The controller did not answer a query in time."""
