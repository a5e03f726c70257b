"""Real browser (Playwright, Debian Chromium, the real cheroot server, the page's own CSP): the chief
referee reaches 账号 / Accounts by a tap in the top bar, adds an account (a mistyped repeat is
caught before anything is sent), gives it another role and removes it after saying yes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_service.web import users

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"


def _role_of(users_db: str, name: str) -> str | None:
    conn = users.connect(users_db)
    try:
        u = users.get_user(conn, name)
        return u.role if u else None
    finally:
        conn.close()


def test_the_chief_manages_an_account_by_taps(make_app: Any, serve_app: Any, open_page: Any, h: Any,
                                               users_db: str) -> None:
    srv = serve_app(make_app())
    page, errors = open_page(1024, 900, bypass_csp=False)  # the page's own policy: no eval needed here
    page.goto(f"{srv.url}/auth/login")
    page.fill("#username", "chen")
    page.fill("#password", h.PASSWORD)
    page.click("#login-submit")
    page.click("#nav-accounts")
    page.wait_for_selector('tr[data-user="rita"]')
    assert page.inner_text("h1") == "账号管理"

    # A repeat that differs is caught in the page: nothing is sent, nothing added.
    page.fill("#add-name", "neo")
    page.select_option("#add-role", "referee")
    page.fill("#add-password", "neo-password-1")
    page.fill("#add-password2", "neo-password-2")
    page.click("#add-submit")
    assert page.eval_on_selector("#add-password2", "el => el.validationMessage") == "两次输入的密码不一致"
    assert _role_of(users_db, "neo") is None
    page.fill("#add-password2", "neo-password-1")
    page.click("#add-submit")
    page.wait_for_selector('tr[data-user="neo"]')
    assert "已添加 neo" in page.inner_text("#acc-ok")
    assert _role_of(users_db, "neo") == "referee"
    assert page.input_value("#add-password") == ""  # never written back into the page

    row = page.locator('tr[data-user="neo"]')
    row.locator("select[name=role]").select_option("viewer")
    row.locator("button.set-role-btn").click()
    page.wait_for_selector('tr[data-user="neo"] td.acc-role[data-role="viewer"]')
    assert _role_of(users_db, "neo") == "viewer"

    # Remove asks first: "no" keeps the account, "yes" removes it.
    page.once("dialog", lambda d: d.dismiss())
    page.locator('tr[data-user="neo"] button.remove-btn').click()
    assert _role_of(users_db, "neo") == "viewer"
    asked: list[str] = []
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.locator('tr[data-user="neo"] button.remove-btn').click()
    page.wait_for_selector('tr[data-user="neo"]', state="detached")
    assert asked and "neo" in asked[0] and _role_of(users_db, "neo") is None
    # Your own row offers neither a role nor removal.
    own = page.locator('tr[data-user="chen"]')
    assert own.locator("button.remove-btn").count() == 0 and own.locator("select").count() == 0
    page.click("#lang-toggle")
    assert page.inner_text("h1") == "Accounts"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "accounts.png"), full_page=True)
    assert errors == []


def test_the_hubs_chief_marks_event_accounts_by_taps_on_a_phone(users_db: str, serve_app: Any, open_page: Any,
                                                                h: Any) -> None:
    """The hub's page at 390 px: a new account is an event account unless the box is cleared, an
    existing one is marked with one tap (a chief only after saying yes), every tap target ≥ 44 px."""
    from table_service.event.web import create_hub_app

    srv = serve_app(create_hub_app(None, users_db=users_db, secret_key="t"))
    page, errors = open_page(390, 844, bypass_csp=False, mobile=True)
    page.goto(f"{srv.url}/auth/login?next=/accounts/")
    page.fill("#username", "chen")
    page.fill("#password", h.PASSWORD)
    page.click("#login-submit")
    page.wait_for_selector("#event-note")
    assert page.is_checked("#add-event")
    page.fill("#add-name", "ann")
    page.fill("#add-password", "ann-password-1")
    page.fill("#add-password2", "ann-password-1")
    page.click("#add-submit")
    page.wait_for_selector('tr[data-user="ann"][data-scope="event"] .event-on')

    page.locator('tr[data-user="rita"] button.event-btn').click()
    page.wait_for_selector('tr[data-user="rita"][data-scope="event"]')
    # A chief at every table: asked first; "no" leaves it this hub's own.
    page.once("dialog", lambda d: d.dismiss())
    page.locator('tr[data-user="chen"] button.event-btn').click()
    assert page.locator('tr[data-user="chen"]').get_attribute("data-scope") == "local"
    page.locator('tr[data-user="rita"] button.event-btn.unmark').click()
    page.wait_for_selector('tr[data-user="rita"][data-scope="local"]')

    conn = users.connect(users_db)
    assert users.scopes(conn) == {"ann": "event", "chen": "local", "rita": "local", "vera": "local"}
    conn.close()
    for sel in ("button.event-btn", "label.acc-check", "#add-submit", "button.set-role-btn"):
        for box in (page.locator(sel).nth(i).bounding_box() for i in range(page.locator(sel).count())):
            assert box is not None and box["height"] >= 44, (sel, box)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "accounts-hub-event.png"), full_page=True)
    assert errors == []
