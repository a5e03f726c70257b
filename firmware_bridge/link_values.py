"""What the Pi's serial link hands out, and the pyserial hook that cuts its bytes into frames.

The values (:class:`Message`, :class:`LinkStatus`) are what :class:`~firmware_bridge.link.Link`'s
users see, so they live apart from its threads and lock; :class:`FrameProtocol` is the one hook a
pyserial ``ReaderThread`` calls (pyserial's own ``Packetizer`` pattern), usable without a Link.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import serial.threaded

from .firmware.wire import Decoder, Frame, HelloInfo

__all__ = ["FrameProtocol", "LinkStatus", "Message"]


@dataclass(frozen=True)
class Message:
    """One reliable frame from the controller, delivered exactly once and in order.

    ``seq`` and ``peer_gen`` name the frame to :meth:`Link.hold_ack` (its sequence number, and which
    controller boot's numbering it belongs to); -1 where the message was not received (a test's own)."""

    type: int
    payload: bytes
    seq: int = field(default=-1, compare=False)
    peer_gen: int = field(default=-1, compare=False)


@dataclass(frozen=True)
class LinkStatus:
    """A change of link state.

    ``kind`` is, from the link: ``connected``, ``disconnected``, ``controller_new`` (first contact
    with a controller boot: after the host starts or the controller rebooted), ``version_mismatch``,
    ``port_error``, ``queue_dropped`` (commands queued for a controller that rebooted, dropped: the
    state is re-sent), ``skipped`` (frames the controller gave up on); from the controller, through
    :class:`~firmware_bridge.screen.ScreenController`: ``events_lost`` (button presses its ring
    lost, or a reused press number) and ``controller_error`` (an error frame, an unknown or a
    malformed frame). ``message`` is Chinese first, then English.
    """

    kind: str
    message: str
    peer: HelloInfo | None = None
    detail: object = None
    t: float = field(default_factory=time.monotonic)


class FrameProtocol(serial.threaded.Protocol):
    """A pyserial ``Protocol`` that cuts the byte stream into checked frames.

    Subclasses override the one hook :meth:`handle_frame`; :attr:`decoder` counts what was dropped.
    """

    def __init__(self) -> None:
        self.decoder = Decoder()
        self.transport = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.decoder.reset()

    def data_received(self, data: bytes) -> None:
        frames = self.decoder.feed(data)
        for frame in frames:
            self.handle_frame(frame)
        self.frames_done(len(frames))

    def handle_frame(self, frame: Frame) -> None:
        """Called once per valid frame, in arrival order."""
        raise NotImplementedError

    def frames_done(self, count: int) -> None:
        """Called after each chunk of input (after its frames); default does nothing."""

    def connection_lost(self, exc: BaseException | None) -> None:
        self.transport = None
