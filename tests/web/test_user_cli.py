"""``guandan-table user add/remove/list`` through the real command line collector."""

from __future__ import annotations

import io
import sys

import pytest

from table_service.cli import main
from table_service.web import users


def run(argv, stdin_text=None, monkeypatch=None):
    if stdin_text is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin_text))
    return main(argv)


def test_add_list_remove(tmp_path, monkeypatch, capsys):
    db = str(tmp_path / "u.db")
    assert run(["user", "add", "li", "--role", "chief", "--db", db, "--password-stdin"],
               "a-long-password\n", monkeypatch) == 0
    assert run(["user", "add", "wang", "--db", db, "--password-stdin"], "another-pass\n", monkeypatch) == 0
    capsys.readouterr()
    assert run(["user", "list", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "li\tchief" in out and "wang\treferee" in out
    conn = users.connect(db)
    assert users.authenticate(conn, "li", "a-long-password") is not None
    conn.close()
    assert run(["user", "remove", "wang", "--db", db]) == 0
    capsys.readouterr()
    run(["user", "list", "--db", db])
    assert "wang" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "stdin", "message"),
    [
        (["user", "add", "x", "--password-stdin"], "short\n", "at least"),
        (["user", "add", "bad name!", "--password-stdin"], "long-enough-pw\n", "invalid user name"),
        (["user", "remove", "ghost"], None, "no such user"),
    ],
)
def test_errors_are_clear(tmp_path, monkeypatch, capsys, argv, stdin, message):
    db = str(tmp_path / "u.db")
    users.connect(db).close()
    assert run([*argv, "--db", db], stdin, monkeypatch) == 2
    assert message in capsys.readouterr().err


def test_duplicate_user(tmp_path, monkeypatch, capsys):
    db = str(tmp_path / "u.db")
    run(["user", "add", "li", "--db", db, "--password-stdin"], "a-long-password\n", monkeypatch)
    assert run(["user", "add", "li", "--db", db, "--password-stdin"], "a-long-password\n", monkeypatch) == 2
    assert "already exists" in capsys.readouterr().err


def test_bad_role_rejected_by_argparse(tmp_path):
    with pytest.raises(SystemExit):
        main(["user", "add", "li", "--role", "king", "--db", str(tmp_path / "u.db")])


@pytest.mark.parametrize("cmd", [["list"], ["remove", "rita"], ["passwd", "rita", "--password-stdin"]])
def test_commands_that_only_read_or_remove_leave_an_empty_file_as_it_is(tmp_path, monkeypatch, capsys, cmd):
    """SQLite takes an empty file for a new database: ``user list`` turned a 0-byte file into a users
    database and said "no users"."""
    empty = tmp_path / "e.txt"
    empty.write_bytes(b"")
    monkeypatch.setattr(sys, "stdin", io.StringIO("correct-horse-9\n"))
    assert main(["user", *cmd, "--db", str(empty)]) == 2
    assert "empty file" in capsys.readouterr().err
    assert empty.read_bytes() == b""


def test_a_users_database_in_a_folder_not_made_yet_is_created_there(tmp_path):
    """``[web] users_db = "accounts/users.sqlite3"`` before the folder exists: the first login (or
    ``user add``) makes the folder, as the event log's is made, instead of failing to open the file."""
    conn = users.connect(tmp_path / "accounts" / "users.sqlite3")
    conn.close()
    assert (tmp_path / "accounts" / "users.sqlite3").is_file()


def test_the_users_database_is_readable_by_its_owner_only(tmp_path, monkeypatch):
    """It holds the password hashes and the sessions: the hub's was 0644 (the audit of 2026-12-06)."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        db = tmp_path / "hub-data" / "web-users.sqlite3"
        assert run(["user", "add", "li", "--role", "chief", "--db", str(db), "--password-stdin"],
                   "a-long-password\n", monkeypatch) == 0
        assert stat.S_IMODE(db.stat().st_mode) == 0o600
        db.chmod(0o644)  # made by an earlier release
        users.connect(db).close()
        assert stat.S_IMODE(db.stat().st_mode) == 0o600
    finally:
        os.umask(old)


@pytest.mark.parametrize("argv", [["add", "zhao", "--password-stdin"], ["remove", "li"],
                                  ["passwd", "li", "--password-stdin"]])
def test_a_read_only_users_database_is_said_in_words(argv, tmp_path, monkeypatch, capsys):
    """It was "内部错误 / internal error (OperationalError: attempt to write a readonly database)", exit 3."""
    db = str(tmp_path / "u.db")
    assert run(["user", "add", "li", "--role", "chief", "--db", db, "--password-stdin"],
               "a-long-password\n", monkeypatch) == 0
    (tmp_path / "u.db").chmod(0o400)
    connect = users.connect

    def read_only(path, **kw):  # root ignores the file's mode: sqlite is told to write nothing
        conn = connect(path, **kw)
        conn.execute("PRAGMA query_only = ON")
        return conn

    monkeypatch.setattr(users, "connect", read_only)
    capsys.readouterr()
    rc = run(["user", *argv, "--db", db], "another-password\n", monkeypatch)
    err = capsys.readouterr().err
    assert rc == 2 and f"the users database {db} is read-only" in err and "Traceback" not in err, err
