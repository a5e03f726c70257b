"""``guandan-table user add/passwd`` take the names and passwords the accounts page takes, no more
(audit 26): a name with a trailing newline was stored (``$`` matches before a final newline) and
nobody could log in with it; a 5 MB password was taken though the page stops at ``MAX_PASSWORD``."""

from __future__ import annotations

import io
import sys

import pytest

from table_service.cli import main
from table_service.web import accounts, users


def run(argv, stdin_text, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin_text))
    return main(argv)


def _names(db):
    conn = users.connect(db)
    try:
        return [u.name for u in users.list_users(conn)]
    finally:
        conn.close()


@pytest.mark.parametrize("name", ["bob\n", "bob\r", "\nbob", "bob\n\n", "b" * 65])
def test_a_name_with_a_newline_is_refused_and_nothing_is_stored(tmp_path, monkeypatch, capsys, name):
    db = str(tmp_path / "u.db")
    assert run(["user", "add", name, "--role", "viewer", "--db", db, "--password-stdin"], "longenough1\n",
               monkeypatch) == 2
    assert "invalid user name" in capsys.readouterr().err
    assert not (tmp_path / "u.db").exists()  # checked before the database is opened
    users.connect(db).close()
    with pytest.raises(users.UserError, match="用户名无效"):
        users.add_user(users.connect(db), name, "longenough1", "viewer")
    assert _names(db) == []


def test_a_password_over_the_accounts_page_limit_is_refused(tmp_path, monkeypatch, capsys):
    db = str(tmp_path / "u.db")
    huge = "x" * 5_000_000
    assert run(["user", "add", "big", "--role", "viewer", "--db", db, "--password-stdin"], huge + "\n",
               monkeypatch) == 2
    err = capsys.readouterr().err
    assert f"{users.MAX_PASSWORD}" in err and "longer than" in err and "xxxx" not in err
    assert not (tmp_path / "u.db").exists()
    longest = "y" * users.MAX_PASSWORD
    assert run(["user", "add", "edge", "--db", db, "--password-stdin"], longest + "\r\n", monkeypatch) == 0
    assert run(["user", "add", "over", "--db", db, "--password-stdin"], longest + "y\n", monkeypatch) == 2
    assert _names(db) == ["edge"]
    conn = users.connect(db)
    assert users.authenticate(conn, "edge", longest) is not None
    conn.close()


def test_passwd_applies_the_same_limit(tmp_path, monkeypatch, capsys):
    db = str(tmp_path / "u.db")
    assert run(["user", "add", "li", "--db", db, "--password-stdin"], "a-long-password\n", monkeypatch) == 0
    assert run(["user", "passwd", "li", "--db", db, "--password-stdin"], "z" * 2000 + "\n", monkeypatch) == 2
    assert "longer than" in capsys.readouterr().err
    conn = users.connect(db)
    assert users.authenticate(conn, "li", "a-long-password") is not None
    with pytest.raises(users.UserError, match="longer than"):
        users.set_password(conn, "li", "z" * (users.MAX_PASSWORD + 1))
    conn.close()


def test_the_command_line_and_the_accounts_page_share_one_limit():
    """One constant (users.MAX_PASSWORD), one check (users.check_password), on the page as in the command."""
    assert not hasattr(accounts, "MAX_PASSWORD") and users.MAX_PASSWORD == 1024


@pytest.mark.parametrize("second", ["RITA", "Rita", "ｒｉｔａ"])
def test_a_name_that_reads_like_an_existing_one_is_refused(tmp_path, second):
    """The probe: the accounts page took RITA beside rita, and ab１ (a full-width digit) beside ab1:
    two logins that the page and the event log show alike."""
    conn = users.connect(tmp_path / "u.sqlite3")
    try:
        users.add_user(conn, "rita", "correct-horse-9", "referee")
        with pytest.raises(users.UserError, match="looks like the existing account 'rita'"):
            users.add_user(conn, second, "correct-horse-9", "chief")
        users.add_user(conn, "ab1", "correct-horse-9", "viewer")
        with pytest.raises(users.UserError, match="looks like"):
            users.add_user(conn, "ab１", "correct-horse-9", "viewer")
        assert sorted(u.name for u in users.list_users(conn)) == ["ab1", "rita"]
    finally:
        conn.close()


@pytest.mark.parametrize("password", [" " * 12, "correct\x00horse", "correct\x1bhorse", "correct\nhorse9"])
def test_a_password_of_spaces_or_control_characters_is_refused(password):
    with pytest.raises(users.UserError):
        users.check_password(password)


def test_db_and_config_together_are_refused_not_the_config_ignored(tmp_path, monkeypatch, capsys):
    """With --db given, a --config that does not parse was never read: exit 0 and the account added,
    the typo unsaid (the same file alone is refused, exit 2)."""
    bad = tmp_path / "bad.toml"
    bad.write_text("[[[")
    db = str(tmp_path / "u.db")
    assert run(["user", "add", "okname", "--role", "viewer", "--db", db, "--config", str(bad),
                "--password-stdin"], "a-long-password\n", monkeypatch) == 2
    assert "not both" in capsys.readouterr().err
    assert not (tmp_path / "u.db").exists()
