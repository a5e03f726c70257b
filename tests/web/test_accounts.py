"""The chief referee's 账号 / Accounts page: everything ``guandan-table user`` does, from the page
(web/accounts.py), with its refusals: a lower role (403), a bad form (400, one line, Chinese
first), no CSRF token (400), yourself, the last chief. Passwords are never shown or logged."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from table_service.web import users

CJK = re.compile(r"[\u4e00-\u9fff]")
NEW_PW = "brand-new-pass-7"
JSON = {"Accept": "application/json"}


def _post(client: Any, h: Any, url: str, data: dict[str, str], *, json: bool = False) -> Any:
    return client.post(url, data={"csrf_token": h.csrf_of(client), **data}, headers=JSON if json else {})


def _one_line_chinese_first(message: str) -> None:
    assert "\n" not in message and "/ " in message, message
    assert CJK.search(message.split("/ ")[0]), message


@pytest.fixture
def chief(make_app: Any, h: Any) -> tuple[Any, Any]:
    app = make_app()
    c = app.test_client()
    h.login(c, "chen")
    return app, c


def test_the_chief_adds_an_account_that_can_log_in(chief: Any, h: Any, users_db: str) -> None:
    app, c = chief
    r = _post(c, h, "/accounts/add", {"name": "张伟", "role": "referee", "password": NEW_PW, "password2": NEW_PW})
    assert r.status_code == 302 and r.location.endswith("/accounts/")
    page = c.get("/accounts/").get_data(as_text=True)
    assert 'data-user="张伟"' in page and "已添加 张伟" in page
    assert h.accounts(users_db)["张伟"] == "referee"
    other = app.test_client()
    assert h.login(other, "张伟", NEW_PW).status_code == 302
    assert other.get("/auth/whoami").get_json()["role"] == "referee"
    # As JSON for a script: the same form, the answer in one line.
    r = _post(c, h, "/accounts/add", {"name": "sam", "role": "spectator", "password": NEW_PW}, json=True)
    assert r.status_code == 200 and r.get_json()["ok"] is True and "sam" in r.get_json()["message"]
    listed = {u["name"]: u for u in c.get("/accounts/", headers=JSON).get_json()["users"]}
    assert listed["sam"]["role"] == "spectator" and listed["chen"]["you"] and not listed["sam"]["locked"]


def test_the_chief_changes_a_password_and_the_old_sessions_end(chief: Any, h: Any) -> None:
    app, c = chief
    rita = app.test_client()
    h.login(rita, "rita")
    assert rita.get("/auth/whoami").get_json()["user"] == "rita"
    r = _post(c, h, "/accounts/password", {"name": "rita", "password": NEW_PW, "password2": NEW_PW})
    assert r.status_code == 302
    assert "rita 的密码已修改" in c.get("/accounts/").get_data(as_text=True)
    assert rita.get("/auth/whoami").get_json()["user"] is None  # her tablet's session ended
    assert h.login(app.test_client(), "rita").status_code == 401  # the old password is gone
    assert h.login(app.test_client(), "rita", NEW_PW).status_code == 302


def test_the_chief_changes_own_password_and_stays_logged_in_here_only(chief: Any, h: Any) -> None:
    app, c = chief
    other_tablet = app.test_client()
    h.login(other_tablet, "chen")
    r = _post(c, h, "/accounts/password", {"name": "chen", "password": NEW_PW, "password2": NEW_PW})
    assert r.status_code == 302
    assert c.get("/auth/whoami").get_json()["user"] == "chen"  # this tablet goes on
    assert c.get("/accounts/").status_code == 200
    assert other_tablet.get("/auth/whoami").get_json()["user"] is None
    assert h.login(app.test_client(), "chen", NEW_PW).status_code == 302


def test_the_chief_changes_a_role_and_it_holds_from_the_next_request(chief: Any, h: Any, users_db: str) -> None:
    app, c = chief
    rita = app.test_client()
    h.login(rita, "rita")
    r = _post(c, h, "/accounts/role", {"name": "rita", "role": "chief"})
    assert r.status_code == 302 and h.accounts(users_db)["rita"] == "chief"
    assert rita.get("/accounts/").status_code == 200  # same session, new role
    r = _post(c, h, "/accounts/role", {"name": "rita", "role": "viewer"}, json=True)
    assert r.status_code == 200 and "viewer" in r.get_json()["message"]
    assert rita.get("/accounts/").status_code == 403


def test_the_chief_removes_an_account_and_its_sessions_end(chief: Any, h: Any, users_db: str) -> None:
    app, c = chief
    vera = app.test_client()
    h.login(vera, "vera")
    r = _post(c, h, "/accounts/remove", {"name": "vera"})
    assert r.status_code == 302 and "vera" not in h.accounts(users_db)
    assert "已删除 vera" in c.get("/accounts/").get_data(as_text=True)
    assert vera.get("/auth/whoami").get_json()["user"] is None
    assert vera.get("/api/tables", headers=JSON).status_code == 401


@pytest.mark.parametrize(("url", "data", "says"), [
    ("/accounts/add", {"name": "neo", "role": "referee", "password": "short", "password2": "short"}, "至少 8 位"),
    ("/accounts/add", {"name": "neo", "role": "referee", "password": NEW_PW, "password2": NEW_PW + "x"},
     "两次输入的密码不一致"),
    ("/accounts/add", {"name": "bad name!", "role": "referee", "password": NEW_PW}, "用户名无效"),
    ("/accounts/add", {"name": "", "role": "referee", "password": NEW_PW}, "用户名无效"),
    ("/accounts/add", {"name": "n" * 65, "role": "referee", "password": NEW_PW}, "过长"),
    ("/accounts/add", {"name": "rita", "role": "referee", "password": NEW_PW}, "用户已存在"),
    ("/accounts/add", {"name": "neo", "role": "admin", "password": NEW_PW}, "未知角色"),
    ("/accounts/add", {"name": "neo", "password": NEW_PW}, "未知角色"),
    ("/accounts/add", {"name": "neo", "role": "referee", "password": "x" * 1025}, "密码过长"),
    ("/accounts/password", {"name": "rita", "password": "1234567"}, "至少 8 位"),
    ("/accounts/password", {"name": "nobody", "password": NEW_PW}, "没有该用户"),
    ("/accounts/password", {"password": NEW_PW}, "请选择账号"),
    ("/accounts/password", {"name": "rita", "password": NEW_PW, "password2": "other-pass-1"}, "不一致"),
    ("/accounts/role", {"name": "rita", "role": "root"}, "未知角色"),
    # The English half lists the roles too (s43 probe: only the Chinese half did).
    ("/accounts/role", {"name": "rita", "role": "chief "},
     "(one of spectator/viewer/referee/chief)"),
    ("/accounts/role", {"name": "nobody", "role": "viewer"}, "没有该用户"),
    ("/accounts/role", {"name": "chen", "role": "viewer"}, "不能修改自己的角色"),
    ("/accounts/remove", {"name": "chen"}, "不能删除自己"),
    ("/accounts/remove", {"name": "nobody"}, "没有该用户"),
    ("/accounts/remove", {"name": "x" * 5000}, "请选择账号"),
    ("/accounts/unlock", {"name": "nobody"}, "没有该用户"),
    ("/accounts/unlock", {"address": "1" * 65}, "过长"),
    # Not an address a lock-out can be kept under (s43 probe: "no failed logins from not-an-ip", 200).
    ("/accounts/unlock", {"address": "not-an-ip"}, "地址无效"),
    ("/accounts/unlock", {"address": "192.168.1.300"}, "not an IP address"),
])
def test_bad_input_is_a_400_with_one_chinese_first_line_and_changes_nothing(
        chief: Any, h: Any, users_db: str, url: str, data: dict[str, str], says: str) -> None:
    app, c = chief
    before = h.accounts(users_db)
    r = _post(c, h, url, data, json=True)
    assert r.status_code == 400 and r.get_json()["ok"] is False
    _one_line_chinese_first(r.get_json()["error"])
    assert says in r.get_json()["error"]
    # A browser gets the page again with the message (and never the password it typed).
    r = _post(c, h, url, data)
    page = r.get_data(as_text=True)
    assert r.status_code == 400 and 'id="acc-error"' in page and says in page
    for secret in (data.get("password"), data.get("password2")):
        assert not secret or len(secret) < 8 or secret not in page
    assert h.accounts(users_db) == before
    assert h.login(app.test_client(), "rita").status_code == 302  # rita's password unchanged


@pytest.mark.parametrize("who", ["vera", "rita"])
def test_viewers_and_referees_are_refused(make_app: Any, h: Any, users_db: str, who: str) -> None:
    app = make_app()
    c = app.test_client()
    h.login(c, who)
    assert c.get("/accounts/").status_code == 403
    assert c.get("/accounts/", headers=JSON).status_code == 403
    assert 'id="nav-accounts"' not in c.get("/").get_data(as_text=True)
    before = h.accounts(users_db)
    for url, data in (("/accounts/add", {"name": "neo", "role": "chief", "password": NEW_PW}),
                      ("/accounts/password", {"name": "chen", "password": NEW_PW}),
                      ("/accounts/role", {"name": who, "role": "chief"}),
                      ("/accounts/remove", {"name": "chen"}),
                      ("/accounts/unlock", {"name": "chen"})):
        assert _post(c, h, url, data).status_code == 403, url
        assert _post(c, h, url, data, json=True).status_code == 403, url
    assert h.accounts(users_db) == before


def test_logged_out_and_csrf(make_app: Any, h: Any, users_db: str) -> None:
    app = make_app()
    anon = app.test_client()
    r = anon.get("/accounts/")
    assert r.status_code == 302 and "/auth/login" in r.location
    assert anon.get("/accounts/", headers=JSON).status_code == 401
    assert _post(anon, h, "/accounts/remove", {"name": "rita"}, json=True).status_code == 401
    c = app.test_client()
    h.login(c, "chen")
    assert 'id="nav-accounts"' in c.get("/").get_data(as_text=True)
    page = c.get("/accounts/").get_data(as_text=True)
    token = h.csrf_of(c)
    # Every form on the page carries the session's token.
    assert page.count("<form") == page.count(f'name="csrf_token" value="{token}"')
    for data in ({"name": "rita"}, {"name": "rita", "csrf_token": "forged"}):
        r = c.post("/accounts/remove", data=data)
        assert r.status_code == 400 and "CSRF" in r.get_data(as_text=True)
    assert "rita" in h.accounts(users_db)


def test_the_last_chief_is_kept(make_app: Any, h: Any, users_db: str) -> None:
    conn = users.connect(users_db)
    users.add_user(conn, "zhou", "chief-pw-22", "chief")
    conn.close()
    app = make_app()
    chen, zhou = app.test_client(), app.test_client()
    h.login(chen, "chen")
    h.login(zhou, "zhou", "chief-pw-22")
    # Two chiefs: one may demote the other; the demoted one's next request is refused.
    assert _post(chen, h, "/accounts/role", {"name": "zhou", "role": "referee"}).status_code == 302
    assert _post(zhou, h, "/accounts/remove", {"name": "chen"}).status_code == 403
    # The database refuses the last chief's removal or demotion inside the statement itself, so
    # two chiefs acting at the same moment cannot leave none (what the page asks of users.py).
    conn = users.connect(users_db)
    try:
        with pytest.raises(users.UserError, match="最后一位裁判长"):
            users.remove_user(conn, "chen", keep_a_chief=True)
        with pytest.raises(users.UserError, match="最后一位裁判长"):
            users.set_role(conn, "chen", "referee")
        users.set_role(conn, "chen", "chief")  # a chief given chief again is no demotion
        with pytest.raises(users.UserError, match="没有该用户"):
            users.remove_user(conn, "nobody", keep_a_chief=True)
        assert users.get_user(conn, "chen") == users.User("chen", "chief")
    finally:
        conn.close()


def test_a_user_locked_out_by_failed_logins_is_listed_and_unlocked(make_app: Any, h: Any) -> None:
    app = make_app(LOGIN_MAX_FAILURES=3)
    rita = app.test_client()
    for _ in range(3):
        assert h.login(rita, "rita", "wrong-password").status_code == 401
    assert h.login(rita, "rita").status_code == 429  # locked out, even with her right password
    c = app.test_client()
    h.login(c, "chen")
    listed = {u["name"]: u for u in c.get("/accounts/", headers=JSON).get_json()["users"]}
    assert listed["rita"]["locked"] and listed["rita"]["failures"] == 3 and listed["rita"]["retry_after_s"] > 0
    assert not listed["vera"]["locked"] and listed["vera"]["failures"] == 0
    page = c.get("/accounts/").get_data(as_text=True)
    row = page.split('data-user="rita"')[1].split("</tr>")[0]
    assert "已锁定" in row and 'action="/accounts/unlock"' in row
    r = _post(c, h, "/accounts/unlock", {"name": "rita"})
    assert r.status_code == 302
    assert "已解除 rita 的登录锁定" in c.get("/accounts/").get_data(as_text=True)
    assert h.login(rita, "rita").status_code == 302
    assert not {u["name"]: u for u in c.get("/accounts/", headers=JSON).get_json()["users"]}["rita"]["locked"]


def test_an_address_locked_as_a_whole_is_listed_and_unlocked(make_app: Any, h: Any) -> None:
    app = make_app(LOGIN_MAX_FAILURES=2)
    hall = "10.0.0.66"  # the tablets behind the hall's NAT
    sprayer = app.test_client()
    sprayer.environ_base["REMOTE_ADDR"] = hall
    for name in ("a", "b", "c", "d", "e", "f", "g", "h"):  # 4 × 2 failures from one address, no name twice
        assert h.login(sprayer, name, "guess-guess").status_code == 401
    vera = app.test_client()
    vera.environ_base["REMOTE_ADDR"] = hall
    assert h.login(vera, "vera").status_code == 429  # the whole address waits
    c = app.test_client()  # the chief, from another address
    h.login(c, "chen")
    view = c.get("/accounts/", headers=JSON).get_json()
    assert [(a["address"], a["failures"]) for a in view["locked_addresses"]] == [(hall, 8)]
    assert not any(u["locked"] for u in view["users"])
    assert f'data-address="{hall}"' in c.get("/accounts/").get_data(as_text=True)
    r = _post(c, h, "/accounts/unlock", {"address": hall})
    assert r.status_code == 302 and f"已解除地址 {hall} 的登录锁定" in c.get("/accounts/").get_data(as_text=True)
    assert h.login(vera, "vera").status_code == 302
    assert c.get("/accounts/", headers=JSON).get_json()["locked_addresses"] == []


def test_passwords_are_never_shown_or_logged(chief: Any, h: Any, caplog: pytest.LogCaptureFixture) -> None:
    app, c = chief
    secret, other = "secret-horse-41", "another-horse-42"
    with caplog.at_level(logging.DEBUG):
        pages = [_post(c, h, "/accounts/add", {"name": "neo", "role": "viewer", "password": secret,
                                               "password2": secret}),
                 _post(c, h, "/accounts/add", {"name": "neo", "role": "viewer", "password": secret}),  # duplicate
                 _post(c, h, "/accounts/password", {"name": "neo", "password": other, "password2": other}),
                 _post(c, h, "/accounts/password", {"name": "neo", "password": other, "password2": secret}),
                 c.get("/accounts/"), c.get("/accounts/", headers=JSON)]
    assert [p.status_code for p in pages] == [302, 400, 302, 400, 200, 200]
    assert any("accounts:" in rec.getMessage() for rec in caplog.records)  # the audit lines are there
    for text in [p.get_data(as_text=True) for p in pages] + [rec.getMessage() for rec in caplog.records]:
        assert secret not in text and other not in text


def test_the_hub_has_the_accounts_page_too(tmp_path: Any, h: Any) -> None:
    from table_service.event.web import create_hub_app

    db = str(tmp_path / "hub-users.sqlite3")
    conn = users.connect(db)
    users.add_user(conn, "chen", h.PASSWORD, "chief")
    users.add_user(conn, "rita", h.PASSWORD, "referee")
    conn.close()
    app = create_hub_app(None, users_db=db, secret_key="t")
    app.config["TESTING"] = True
    c = app.test_client()
    h.login(c, "chen")
    assert c.get("/accounts/").status_code == 200
    assert _post(c, h, "/accounts/role", {"name": "rita", "role": "viewer"}).status_code == 302
    conn = users.connect(db)
    assert users.get_user(conn, "rita") == users.User("rita", "viewer")
    conn.close()
