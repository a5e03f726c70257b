"""The hub's accounts page marks event accounts (赛事账号 — valid at every table) and, after every
change, sends the marked set: name, role and the stored hash, never a password, numbered one more
each time it changes. Only viewer, referee and chief accounts can be marked; a new account at the
hub is marked by default (the box is ticked); the page is the chief's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from table_service.event.web import create_hub_app
from table_service.web import users
from table_service.web.event_accounts import AccountSet, outgoing, read_message

JSON = {"Accept": "application/json"}
NEW_PW = "brand-new-pass-7"


class FakeHub:
    """The hub service as the accounts page sees it: ``publish_accounts`` numbers the set and keeps
    the message it would send (the broker test sends it through Mosquitto)."""

    def __init__(self) -> None:
        self.accounts_db: str | None = None
        self.sent: list[bytes] = []

    def publish_accounts(self) -> int:
        assert self.accounts_db is not None
        conn = users.connect(self.accounts_db)
        try:
            got, _changed = outgoing(conn, "ev")
        finally:
            conn.close()
        self.sent.append(got.payload())
        return got.version


def last(hub: FakeHub) -> AccountSet:
    """The last message, as a table reads it (the table's own check)."""
    return read_message(hub.sent[-1], "ev")


def names(got: AccountSet) -> dict[str, str]:
    return {a.name: a.role for a in got.accounts}


@pytest.fixture
def hub(users_db: str, h: Any) -> tuple[FakeHub, Any]:
    fake = FakeHub()
    app = create_hub_app(fake, users_db=users_db, secret_key="t")
    app.config["TESTING"] = True
    c = app.test_client()
    h.login(c, "chen")
    return fake, c


def _post(c: Any, h: Any, url: str, data: dict[str, str], *, json_: bool = False) -> Any:
    return c.post(url, data={"csrf_token": h.csrf_of(c), **data}, headers=JSON if json_ else {})


def test_the_chief_marks_event_accounts_and_the_hub_sends_exactly_them(hub: Any, h: Any, users_db: str) -> None:
    fake, c = hub
    assert fake.sent and last(fake).accounts == () and last(fake).version == 1  # sent when the hub's pages start

    r = _post(c, h, "/accounts/add", {"name": "ann", "role": "referee", "password": NEW_PW, "password2": NEW_PW,
                                      "event": "1"})
    assert r.status_code == 302
    page = c.get("/accounts/").get_data(as_text=True)
    assert "在每张比赛桌有效" in page and "赛事账号第 2 版已发往各比赛桌" in page
    got = last(fake)
    assert got.version == 2 and names(got) == {"ann": "referee"}
    conn = users.connect(users_db)
    stored = conn.execute("SELECT password_hash FROM users WHERE name = 'ann'").fetchone()[0]
    conn.close()
    assert got.accounts[0].password_hash == stored and NEW_PW.encode() not in fake.sent[-1]

    # Not ticked: this hub's account only, nothing new sent.
    r = _post(c, h, "/accounts/add", {"name": "bo", "role": "referee", "password": NEW_PW}, json_=True)
    assert r.status_code == 200 and "已发往" not in r.get_json()["message"]
    assert names(last(fake)) == {"ann": "referee"} and last(fake).version == 2

    # An existing account marked, then the mark taken off.
    r = _post(c, h, "/accounts/event", {"name": "rita", "event": "1"}, json_=True)
    assert r.status_code == 200 and "第 3 版" in r.get_json()["message"]
    assert names(last(fake)) == {"ann": "referee", "rita": "referee"}
    assert _post(c, h, "/accounts/event", {"name": "rita", "event": "0"}).status_code == 302
    assert names(last(fake)) == {"ann": "referee"} and last(fake).version == 4

    # A demotion and a new password go out; a spectator is no event account.
    assert _post(c, h, "/accounts/role", {"name": "ann", "role": "viewer"}).status_code == 302
    assert names(last(fake)) == {"ann": "viewer"}
    before = last(fake).accounts[0].password_hash
    assert _post(c, h, "/accounts/password", {"name": "ann", "password": "another-pass-8",
                                              "password2": "another-pass-8"}).status_code == 302
    assert last(fake).accounts[0].password_hash != before and last(fake).version == 6
    assert _post(c, h, "/accounts/role", {"name": "ann", "role": "spectator"}).status_code == 302
    assert names(last(fake)) == {} and last(fake).version == 7
    r = _post(c, h, "/accounts/event", {"name": "ann", "event": "1"}, json_=True)
    assert r.status_code == 400 and r.get_json()["error"] == users.EVENT_ROLE_ONLY
    r = _post(c, h, "/accounts/add", {"name": "sam", "role": "spectator", "password": NEW_PW, "event": "1"}, json_=True)
    assert r.status_code == 400 and r.get_json()["error"] == users.EVENT_ROLE_ONLY

    # Removed at the hub: out of the set.
    _post(c, h, "/accounts/event", {"name": "vera", "event": "1"})
    assert names(last(fake)) == {"vera": "viewer"}
    assert _post(c, h, "/accounts/remove", {"name": "vera"}).status_code == 302
    assert names(last(fake)) == {} and last(fake).version == 9
    for payload in fake.sent:  # never a password, whatever was typed
        assert NEW_PW.encode() not in payload and b"another-pass-8" not in payload
        assert set(json.loads(payload)) == {"event", "version", "accounts"}


def test_the_hubs_add_form_ticks_event_account_and_each_row_has_its_tap(hub: Any, h: Any) -> None:
    fake, c = hub
    page = c.get("/accounts/").get_data(as_text=True)
    assert '<input type="checkbox" name="event" value="1" id="add-event" checked>' in page
    assert "赛事账号 — 在每张比赛桌有效" in page
    assert page.count('class="acc-form set-event"') == 3  # vera, rita, chen: each can be marked
    listed = {u["name"]: u for u in c.get("/accounts/", headers=JSON).get_json()["users"]}
    assert {n: u["scope"] for n, u in listed.items()} == {"vera": "local", "rita": "local", "chen": "local"}
    # A refusal gives the form back as typed, the box as it was.
    r = _post(c, h, "/accounts/add", {"name": "neo", "role": "referee", "password": "short"})
    assert r.status_code == 400 and 'id="add-event">' in r.get_data(as_text=True)


def test_bad_event_marks_are_refused_and_change_nothing(hub: Any, h: Any, users_db: str, make_app: Any) -> None:
    fake, c = hub
    n = len(fake.sent)
    for data in ({"name": "rita", "event": "yes"}, {"name": "rita"}, {"name": "nobody", "event": "1"},
                 {"event": "1"}):
        r = _post(c, h, "/accounts/event", data, json_=True)
        assert r.status_code == 400, data
        assert "/ " in r.get_json()["error"]
    assert len(fake.sent) == n
    conn = users.connect(users_db)
    assert set(users.scopes(conn).values()) == {"local"}
    conn.close()
    # A referee may not mark anyone.
    rc = c.application.test_client()
    h.login(rc, "rita")
    assert _post(rc, h, "/accounts/event", {"name": "rita", "event": "1"}).status_code == 403
