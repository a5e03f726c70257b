"""Whether a service can serve on ``host:port``, asked before it creates anything.

Apart from :mod:`table_service.web.server` because it needs no Flask: ``config check`` and ``run`` ask it
through :func:`table_service.table.preflight.check_before_start`, and ``config check`` serves nothing
(importing the server built the whole app's modules: Flask, every blueprint, OpenCV through the
enrolment page, over a second of CPU on a Pi before the check said a word).
"""

from __future__ import annotations

import errno
import socket


class AddressInUseError(ValueError):
    """The port is taken now: by another program, or (``config check`` beside a running table) by
    this very service. A state of the moment, not of the config: ``config check`` warns of it."""


def check_address(host: str, port: int, pages: tuple[str, str], options: str) -> None:
    """Bind ``host:port`` once and let it go, before a service creates anything: a port in use, or a
    host that is not this machine's, failed only after the table's log or the hub's files had been made
    (and was said as "file or device error", or "port 0 in use?").

    ``pages`` names what would be served (Chinese, English); ``options`` where the address is set.

    :raises ValueError: the address cannot be served on, saying why (Chinese first);
        :class:`AddressInUseError` for a port in use.
    """
    zh, en = pages
    # Each half of the reason after its own half of "where": a bilingual "where" put whole in front of
    # the reason left the reason's Chinese in the English half (the pages split at the first " / ").
    where_zh, where_en = f"无法在 {host}:{port} 开启{zh}", f"cannot serve {en} on {host}:{port}"
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as cheroot binds
            sock.bind(addr)
    except (socket.gaierror, UnicodeError) as exc:
        raise ValueError(f"{where_zh}：{host} 不是本机地址（{options}）：{exc} / {where_en}: {host} is not an "
                         f"address of this machine ({options}): {exc}") from None
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise AddressInUseError(f"{where_zh}：端口 {port} 被占用（{options}） / {where_en}: port {port} is in use "
                                    f"by another program ({options})") from None
        if exc.errno == errno.EADDRNOTAVAIL:
            raise ValueError(f"{where_zh}：{host} 不是本机地址（{options}） / {where_en}: {host} is not an address "
                             f"of this machine ({options})") from None
        raise ValueError(f"{where_zh}：{exc.strerror or exc}（{options}） / {where_en}: {exc.strerror or exc} "
                         f"({options})") from None
