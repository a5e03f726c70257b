"""A controller scripted byte by byte on a raw pseudo-terminal, for fault injection.

The emulator runs the real firmware, which never sends a bad frame; this one sends exactly the
bytes a test writes (corrupt, split, replayed, out of range) and does only what the handshake
needs on its own: answer HELLO requests and acknowledge the host's reliable frames. The port is a
stable symlink, re-pointed by :meth:`replug`, as the emulator's is.
"""

from __future__ import annotations

import contextlib
import os
import select
import tempfile
import threading
import time
import tty

from firmware_bridge.firmware.wire import (
    ACK,
    BUTTON,
    HEARTBEAT,
    HELLO,
    HELLO_CONTROLLER,
    HELLO_REQUEST,
    PROTOCOL_VERSION,
    RELIABLE_TYPES,
    Decoder,
    HelloInfo,
    encode_frame,
    pack_ack,
    pack_button,
    pack_hello,
    unpack_hello,
)


class ScriptedController:
    """Answers the handshake; everything else is written by the test (:meth:`write`)."""

    def __init__(self, boot_id: int = 0x5C21_7ED0) -> None:
        self._dir = tempfile.mkdtemp(prefix="guandan-scripted-")
        self.port = os.path.join(self._dir, "tty")
        self.boot_id = boot_id
        self.next_seq = 1
        self.rx_last = 0  # the host's reliable frames acknowledged so far
        self.host_ack = 0  # the host's cumulative acknowledgement of ours
        self.answer_hello = True
        self._master: int | None = None
        self._slave: int | None = None
        self._stop = False
        self._write_lock = threading.RLock()
        self.replug()
        self._thread = threading.Thread(target=self._run, name="scripted-controller", daemon=True)
        self._thread.start()

    # -- the cable -------------------------------------------------------------------------
    def replug(self) -> None:
        """A new pty behind the same symlink (the cable plugged in again)."""
        master, slave = os.openpty()
        tty.setraw(slave)
        self._decoder = Decoder()
        self._master, self._slave = master, slave
        tmp = self.port + ".new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.port)

    def unplug(self) -> None:
        with self._write_lock:
            master, slave, self._master, self._slave = self._master, self._slave, None, None
        for fd in (master, slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.port)

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        self.unplug()
        with contextlib.suppress(OSError):
            os.rmdir(self._dir)

    # -- what the test sends ---------------------------------------------------------------
    def write(self, data: bytes) -> None:
        with self._write_lock:  # the test's thread and the handshake's never interleave their bytes
            master = self._master
            try:
                while data and master is not None:
                    data = data[os.write(master, data):]
            except OSError:
                pass  # unplugged meanwhile: the bytes are lost, as on a pulled cable

    def alone(self) -> threading.RLock:
        """Hold it (``with c.alone():``) while writing one frame in pieces: no heartbeat between them."""
        return self._write_lock

    def button(self, event_no: int, seat: int = 0, button: int = 1, *, seq: int | None = None) -> bytes:
        """A BUTTON frame; numbered with the next sequence number unless ``seq`` is given."""
        if seq is None:
            seq, self.next_seq = self.next_seq, self.next_seq + 1
        return encode_frame(BUTTON, seq, self.rx_last, pack_button(event_no, 50 * event_no, seat, button, True))

    def frame(self, ftype: int, payload: bytes) -> bytes:
        """Any reliable frame, numbered with the next sequence number."""
        seq, self.next_seq = self.next_seq, self.next_seq + 1
        return encode_frame(ftype, seq, self.rx_last, payload)

    # -- the handshake ---------------------------------------------------------------------
    def _hello(self, host_boot: int) -> bytes:
        # tx_base: the oldest frame the host has not acknowledged (a replug resends from there).
        info = HelloInfo(PROTOCOL_VERSION, "scripted-1.1.0", HELLO_CONTROLLER, self.boot_id, host_boot, self.rx_last,
                         (self.host_ack + 1) & 0xFFFF, 4, "SCRIPTED", int(time.monotonic() * 1000) & 0xFFFFFFFF)
        return encode_frame(HELLO, 0, self.rx_last, pack_hello(info))

    def _run(self) -> None:
        last_beat = 0.0
        while not self._stop:
            master = self._master
            if master is None:
                time.sleep(0.01)
                continue
            if time.monotonic() - last_beat > 0.5:  # the host calls the link down after 3.5 s of silence
                last_beat = time.monotonic()
                self.write(encode_frame(HEARTBEAT, 0, self.rx_last, b""))
            try:
                ready, _, _ = select.select([master], [], [], 0.05)
                data = os.read(master, 4096) if ready else b""
            except OSError:
                time.sleep(0.01)
                continue
            for f in self._decoder.feed(data):
                self.host_ack = f.ack
                if f.type == HELLO:
                    h = unpack_hello(f.payload)
                    if h.flags & HELLO_REQUEST and self.answer_hello:
                        self.write(self._hello(h.boot_id))
                elif f.type in RELIABLE_TYPES:
                    self.rx_last = f.seq
                    self.write(encode_frame(ACK, 0, self.rx_last, pack_ack(0)))

