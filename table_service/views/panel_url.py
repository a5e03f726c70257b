"""The address a table gives for its own referee panel, as the hub accepts it: one rule for the table
(``config check``, the MQTT bridge) and the hub (``event.intake``), which sit side by side above this.

Why so strict: the chief referee's overview turns it into a one-tap link shown to every viewer of the
hub's pages, so it must be that table's page over http(s) and nothing else — no other scheme (a
``javascript:`` link), no user:password@, no query or fragment, no other table's page.
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit


def own_panel_url(url: str | None, table_id: str) -> str | None:
    """``[mqtt] panel_url`` as the table announces it: a bare base (``http://pi7:8080`` or ``…/``)
    gets this table's page added; anything else is kept as written (and checked by
    :func:`panel_url_problem`)."""
    if not url:
        return None
    try:
        path = urlsplit(url).path
    except ValueError:
        return url
    if path in ("", "/"):
        return url.rstrip("/") + "/tables/" + quote(str(table_id), safe="")
    return url


def panel_url_problem(url: object, table: str) -> str | None:
    """Why ``url`` is not ``table``'s own panel page ``http(s)://host[:port]/tables/<table>``
    (Chinese, then English), or None when it is."""
    shown = repr(url) if len(repr(url)) <= 60 else repr(url)[:59] + "…"
    if not isinstance(url, str) or len(url) > 500 or not url.isprintable() or any(c.isspace() for c in url):
        return f"panel 地址无效：{shown} / panel address is not a URL: {shown}"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return f"panel 地址无效：{shown} / panel address is not a URL: {shown}"
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username is not None \
            or parts.password is not None or parts.query or parts.fragment or port == 0:
        return (f"panel 须为 http(s)://主机[:端口]/tables/本桌，收到 {shown} / "
                f"panel must be http(s)://host[:port]/tables/<this table>, got {shown}")
    if parts.path != f"/tables/{quote(table, safe='')}":
        path = repr(parts.path)[:60]
        return (f"panel 须指向本桌 {table} 的页面 /tables/{table}，收到 {path} / "
                f"panel must be this table's page /tables/{table}, got {path}")
    return None
