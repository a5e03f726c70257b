"""``guandan-table user …`` never writes into a file that is not its own, never creates a database
by accident, and answers a bad file with one clear line (issue 19 files items, issue 18 item 12)."""

from __future__ import annotations

import io
import sys

import pytest

from table_service.cli import main
from table_service.store.event_log import EventStore
from table_service.web import users


def _event_log(path):
    store = EventStore(path)
    store.append({"type": "drawing_finished", "source": "panel", "t_ms": 1, "data": {}})
    store.close()
    return path


def _one_clear_line(err: str) -> None:
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err


def test_user_add_refuses_an_event_log(tmp_path, monkeypatch, capsys):
    log = _event_log(tmp_path / "T1.sqlite3")
    before = log.read_bytes()
    monkeypatch.setattr(sys, "stdin", io.StringIO("a-long-password\n"))
    assert main(["user", "add", "li", "--db", str(log), "--password-stdin"]) == 2
    err = capsys.readouterr().err
    _one_clear_line(err)
    assert "not a users database" in err
    assert log.read_bytes() == before
    assert not (tmp_path / "T1.sqlite3-wal").exists() or (tmp_path / "T1.sqlite3-wal").stat().st_size == 0


def test_user_list_without_db_creates_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GUANDAN_WEB_CONFIG", raising=False)
    monkeypatch.delenv("GUANDAN_WEB_USERS_DB", raising=False)
    assert main(["user", "list"]) == 2
    err = capsys.readouterr().err
    _one_clear_line(err)
    assert "no users database" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["garbage", "truncated", "directory", "empty"])
@pytest.mark.parametrize("action", [["list"], ["remove", "li"]])
def test_user_commands_on_a_bad_file_say_so_in_one_line(tmp_path, capsys, kind, action):
    path = tmp_path / "users.sqlite3"
    if kind == "garbage":
        path.write_bytes(b"this is not a database at all\n" * 100)
    elif kind == "truncated":
        conn = users.connect(path)
        users.add_user(conn, "li", "a-long-password", "chief")
        conn.close()
        path.write_bytes(path.read_bytes()[:1500])
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_bytes(b"")
    before = path.read_bytes() if path.is_file() else None
    rc = main(["user", *action, "--db", str(path)])
    err = capsys.readouterr().err
    assert rc == 2  # an empty file too: SQLite would take it for a new database and write one into it
    _one_clear_line(err)
    if before is not None:
        assert path.read_bytes() == before


def test_user_passwd_ends_the_sessions(tmp_path, monkeypatch, capsys):
    db = tmp_path / "u.sqlite3"
    conn = users.connect(db)
    users.add_user(conn, "li", "a-long-password", "chief")
    token = users.open_session(conn, "li")
    conn.close()
    monkeypatch.setattr(sys, "stdin", io.StringIO("another-password\n"))
    assert main(["user", "passwd", "li", "--db", str(db), "--password-stdin"]) == 0
    conn = users.connect(db)
    assert users.session_user(conn, token) is None
    assert users.authenticate(conn, "li", "another-password") is not None
    conn.close()
