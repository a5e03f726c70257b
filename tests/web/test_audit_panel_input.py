"""What the outside audit of the panel found in its forms and bodies (docs/security.md §1, §4): a
field sent twice, a repeated JSON key at the deck enrolment, a control character in a form field,
a role named half in English inside the Chinese half of a message. Each is refused with one line,
Chinese first, and changes nothing."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest
from werkzeug.datastructures import MultiDict

from table_service.web import enroll as enroll_bp
from table_service.web import users

CJK = re.compile(r"[\u4e00-\u9fff]")
JSON = {"Accept": "application/json"}


def _chinese_first(message: str) -> None:
    """One Chinese half, then one English half: nothing Chinese after the first slash, and no
    second " / " (a role's whole bilingual name inside a half put English in the middle)."""
    zh, sep, en = message.partition("/")
    assert sep and CJK.search(zh), message
    assert en.strip() and not CJK.search(en) and " / " not in en, message


@pytest.mark.parametrize(("url", "fields"), [
    ("/accounts/role", [("name", "rita"), ("role", "viewer"), ("role", "chief")]),
    ("/accounts/remove", [("name", "vera"), ("name", "rita")]),
    ("/accounts/add", [("name", "zed"), ("role", "viewer"), ("password", "aaaaaaaaaa"), ("password", "bbbbbbbbbb"),
                       ("password2", "aaaaaaaaaa")]),
    ("/accounts/password", [("name", "rita"), ("name", "vera"), ("password", "brand-new-pass-7")]),
    ("/accounts/unlock", [("address", "10.0.0.1"), ("address", "10.0.0.2")]),
])
def test_a_form_field_sent_twice_is_refused_and_changes_nothing(make_app: Any, h: Any, users_db: str, url: str,
                                                                fields: list[tuple[str, str]]) -> None:
    # ``request.form.get`` took the first copy: role=viewer&role=chief made rita a viewer,
    # name=vera&name=rita removed vera; whatever read the last copy saw another request.
    app = make_app()
    c = app.test_client()
    h.login(c, "chen")
    before = h.accounts(users_db)
    conn = users.connect(users_db)
    hashes = conn.execute("SELECT name, password_hash FROM users ORDER BY name").fetchall()
    conn.close()
    for accept in (JSON, {}):
        r = c.post(url, data=MultiDict([*fields, ("csrf_token", h.csrf_of(c))]), headers=accept)
        assert r.status_code == 400, r.get_data(as_text=True)[:200]
        if accept:
            _chinese_first(r.get_json()["error"])
            assert repr(fields[-2][0] if url != "/accounts/add" else "password") in r.get_json()["error"]
    assert h.accounts(users_db) == before
    conn = users.connect(users_db)
    assert conn.execute("SELECT name, password_hash FROM users ORDER BY name").fetchall() == hashes
    conn.close()


def test_a_login_or_csrf_token_sent_twice_is_refused(make_app: Any, h: Any) -> None:
    app = make_app()
    c = app.test_client()
    token = h.csrf_of(c)
    r = c.post("/auth/login", headers=JSON, data=MultiDict([("username", "vera"), ("username", "chen"),
                                                            ("password", h.PASSWORD), ("csrf_token", token)]))
    assert r.status_code == 400 and "'username'" in r.get_json()["error"]
    r = c.post("/auth/login", headers=JSON, data=MultiDict([("username", "chen"), ("password", h.PASSWORD),
                                                            ("csrf_token", token), ("csrf_token", "other")]))
    assert r.status_code == 400 and "'csrf_token'" in r.get_json()["error"]
    assert c.get("/auth/whoami").get_json()["user"] is None  # logged in by neither


@pytest.fixture
def asking(monkeypatch: pytest.MonkeyPatch) -> Any:
    """An enrolment at table 1 waiting for answers about three cards (no camera needed to answer)."""
    cards = [SimpleNamespace(name=None, asked=False, likely=["Qh"]) for _ in range(3)]
    session = enroll_bp._Session(status="asking", cards=cards)
    monkeypatch.setitem(enroll_bp._sessions, "1", session)
    return session


@pytest.mark.parametrize(("body", "status"), [
    ('{"id": 0, "id": 2, "card": "Qh"}', 400),   # a repeated key: the last one named card 2
    ('{"id": 0, "card": "Qh", "card": "Ks"}', 400),
    ('{"id": 0, "card": ["Qh"]}', 400),          # a list quietly turned into the name "['Qh']"
    ('{"id": 0, "card": "Qh", "extra": 1}', 400),
    (b'{"id": 0, "card": "Q\xff"}', 400),         # not UTF-8
    ('{"id": 0, "card": "' + "x" * 5000 + '"}', 400),
    ('{"id": -1, "card": "Qh"}', 404),           # an unknown card, not "nothing to answer now"
    ('{"id": 99999999999999999999999, "card": "Qh"}', 404),
    ('{"id": true, "card": "Qh"}', 400),
    ("[" * 5000, 400),
])
def test_the_enrolment_answer_refuses_bad_bodies_and_changes_nothing(app: Any, h: Any, asking: Any,
                                                                     body: str | bytes, status: int) -> None:
    c = app.test_client()
    h.login(c, "chen")
    r = c.post("/api/tables/1/enroll/answer", data=body, content_type="application/json",
               headers={"X-CSRF-Token": h.csrf_of(c)})
    assert r.status_code == status, r.get_json()
    _chinese_first(r.get_json()["error"])
    assert len(r.get_json()["error"]) < 300
    assert [(x.name, x.asked) for x in asking.cards] == [(None, False)] * 3
    ok = h.post_json(c, "/api/tables/1/enroll/answer", {"id": 1, "card": "Qh"})
    assert ok.status_code == 200 and (asking.cards[1].name, asking.cards[1].asked) == ("Qh", True)


def test_a_control_character_in_the_unlock_address_is_refused(make_app: Any, h: Any) -> None:
    app = make_app()
    c = app.test_client()
    h.login(c, "chen")
    r = c.post("/accounts/unlock", headers=JSON, data={"address": "\x1b[31m10.0.0.1", "csrf_token": h.csrf_of(c)})
    assert r.status_code == 400 and "\x1b" not in r.get_data(as_text=True)
    _chinese_first(r.get_json()["error"])


@pytest.mark.parametrize("role", ["spectator", "viewer"])
def test_role_messages_are_chinese_first_english_second(make_app: Any, h: Any, users_db: str, role: str) -> None:
    # ``ROLE_NAMES[role].split(" / ")[0]`` missed "（实时）/ viewer": the English went into the Chinese half.
    app = make_app()
    c = app.test_client()
    h.login(c, "chen")
    r = c.post("/accounts/role", headers=JSON, data={"name": "rita", "role": role, "csrf_token": h.csrf_of(c)})
    assert r.status_code == 200 and h.accounts(users_db)["rita"] == role
    _chinese_first(r.get_json()["message"])
    r = c.post("/accounts/add", headers=JSON, data={"name": "neo", "role": role, "password": "brand-new-pass-7",
                                                   "csrf_token": h.csrf_of(c)})
    assert r.status_code == 200
    _chinese_first(r.get_json()["message"])
    low = app.test_client()
    h.login(low, "neo", "brand-new-pass-7")
    for url in ("/api/tables", "/accounts/") if role == "spectator" else ("/accounts/",):
        r = low.get(url, headers=JSON)
        assert r.status_code == 403
        _chinese_first(r.get_json()["error"])


@pytest.mark.parametrize("action", [
    {"type": "deal_redrawn", "data": {"reason": "重洗\x1b[2J"}},
    {"type": "round_ended", "data": {"reason": "a\x00b"}},
    {"type": "flag_dismissed", "data": {"flag": "F1", "note": "\x7f"}},
    {"type": "round_set_up", "data": {"players": {"E": "\u202e张伟", "S": "李", "W": "王", "N": "赵"}}},
    {"type": "penalty_given", "data": {"side": "EW", "level": "warning", "article": "x\x85"}},
])
def test_a_control_character_in_an_action_is_refused_before_the_log(app: Any, runner: Any, h: Any,
                                                                     action: dict[str, Any]) -> None:
    # The chief's 重新发牌 with an ESC in its reason went into the log, the panel and the hub as sent;
    # a right-to-left override in a player's name turns it around on the public overlay.
    h.setup_deal(runner)
    c = app.test_client()
    h.login(c, "chen")
    rows = h.logged_rows(runner)
    r = h.post_json(c, "/api/tables/1/actions", action)
    assert r.status_code == 400, r.get_json()
    _chinese_first(r.get_json()["error"])
    assert "\\x" in r.get_json()["error"] or "\\u" in r.get_json()["error"]
    assert h.logged_rows(runner) == rows
    ok = h.post_json(c, "/api/tables/1/actions", {"type": "penalty_given", "data": {
        "side": "EW", "level": "warning", "seat": "E", "article": "两行\n\t说明"}})
    assert ok.status_code == 200 and ok.get_json()["accepted"]  # a line break and a tab are text
