"""Saying, in the log, that the event's broker cannot be reached: the hub and the tables alike.

paho retries a connection that fails (a wrong port, TLS against the plain listener, the broker
down) in silence: a hub once tried TLS on the plain port for ever and wrote not one line (the
security audit of 2026-12-06). This says so at the first failed try, then once a minute while it
lasts, and once more when the broker is reached."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

#: Seconds between two lines saying the broker is still unreachable (paho tries every 1–10 s).
UNREACHABLE_LOG_S = 60.0


class BrokerReach:
    """Counts failed connection tries and logs them, at most once every :data:`UNREACHABLE_LOG_S`."""

    def __init__(self, who: str, host: str, port: int, tls: bool, log: logging.Logger, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.who, self.host, self.port, self.tls = who, host, int(port), tls
        self.log, self.clock = log, clock
        self.failures = 0
        """Failed tries since the broker was last reached."""
        self._logged_at: float | None = None

    def failed(self) -> None:
        """paho's ``on_connect_fail``: the try raised (refused, unreachable, TLS handshake failed)."""
        self.failures += 1
        now = self.clock()
        if self._logged_at is not None and now - self._logged_at < UNREACHABLE_LOG_S:
            return
        self._logged_at = now
        self.log.warning(
            "%s: 无法连接消息服务器 %s:%s（%s，已试 %d 次），继续重试 / cannot reach the broker at %s:%s (%s, %d "
            "tries); retrying: check [mqtt] host, port%s", self.who, self.host, self.port,
            "TLS" if self.tls else "明文 plain", self.failures, self.host, self.port,
            "TLS" if self.tls else "plain", self.failures, " and ca_file (is this port the TLS listener?)"
            if self.tls else " (is this port the TLS listener? then ca_file is missing)")

    def reached(self) -> None:
        """The broker answered: a line when failures had been said, and the count starts again."""
        if self._logged_at is not None:
            self.log.warning("%s: 已连上消息服务器 %s:%s（之前失败 %d 次） / reached the broker at %s:%s after %d failed "
                             "tries", self.who, self.host, self.port, self.failures, self.host, self.port, self.failures)
        self.failures = 0
        self._logged_at = None
