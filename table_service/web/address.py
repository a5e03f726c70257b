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
    where = f"无法开启{zh} / cannot serve {en} on {host}:{port}"
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as cheroot binds
            sock.bind(addr)
    except (socket.gaierror, UnicodeError) as exc:
        raise ValueError(f"{where}: {host} 不是本机地址 / {host} is not an address of this machine "
                         f"({options}): {exc}") from None
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise AddressInUseError(f"{where}: 端口 {port} 被占用 / port {port} is in use by another program "
                                    f"({options})") from None
        if exc.errno == errno.EADDRNOTAVAIL:
            raise ValueError(f"{where}: {host} 不是本机地址 / {host} is not an address of this machine "
                             f"({options})") from None
        raise ValueError(f"{where}: {exc.strerror or exc} ({options})") from None
