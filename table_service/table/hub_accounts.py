"""The table's side of the event accounts (赛事账号) on ``guandan/<event>/accounts``.

Why: at an event of 100 tables the chief referee made each referee's account on every Pi. The hub
now sends its event accounts to every table (:mod:`table_service.web.event_accounts` says what the
message is and how it is applied); this takes the bridge's message, checks it whole, and applies it
to the table's users database — the panel's logins — in one transaction. A bad message is logged
(once per distinct message: the same retained bytes come again on every reconnect) and changes
nothing; a database that cannot be written is logged too. Nothing here raises into paho's thread.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from pathlib import Path

from table_service.web import users
from table_service.web.event_accounts import Applied, apply_received, read_message

log = logging.getLogger(__name__)


class HubAccounts:
    """Applies the hub's event accounts to one table's users database.

    :param users_db: the panel's users database (``[web] users_db``, else the data folder's); None:
        a table without a panel, which has no logins to give (the message is then ignored).
    :param event_id: the table's event: a message naming another is refused.
    :param table_id: for the log lines.
    """

    def __init__(self, users_db: str | Path | None, event_id: str, table_id: str) -> None:
        self.users_db = users_db
        self.event_id = event_id
        self.table_id = table_id
        self.latest: Applied | None = None
        self.refused = 0
        self._lock = threading.Lock()  # one apply at a time (paho's thread; a test's direct call)
        self._said: set[str] = set()

    def on_payload(self, payload: bytes) -> Applied | None:
        """A message on the accounts topic: checked whole, then applied (or nothing at all). An empty
        payload (a cleared retained message) is nothing to do: the set the table holds stays. Returns
        what it did, or None when nothing was applied."""
        if not payload or self.users_db is None:
            return None
        try:
            got = read_message(payload, self.event_id)
        except ValueError as exc:
            self._refuse(payload, str(exc))
            return None
        with self._lock:
            try:
                conn = users.connect(self.users_db)
                try:
                    done = apply_received(conn, got)
                finally:
                    conn.close()
            except (users.UserError, sqlite3.Error, OSError) as exc:
                log.error("table %s: 赛事账号未能写入 / the hub's accounts (version %s) could not be written: %s",
                          self.table_id, got.version, str(exc)[:200])
                return None
            self.latest = done
        if not done.unchanged:
            log.info("table %s: hub accounts version %s: added %s, removed %s, changed %s, local wins %s; "
                     "%s session(s) ended", self.table_id, done.version, done.added, done.removed, done.changed,
                     done.shadowed, done.sessions_ended)
        return done

    def _refuse(self, payload: bytes, why: str) -> None:
        digest = hashlib.sha256(payload).hexdigest()[:16]
        with self._lock:
            self.refused += 1
            first = digest not in self._said
            if first and len(self._said) < 100:
                self._said.add(digest)
        if first:
            log.warning("table %s: %s", self.table_id, why[:240])
