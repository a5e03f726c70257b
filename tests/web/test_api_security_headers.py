"""Content-Security-Policy and Referrer-Policy on every page (issue 19, web item 5), and the pages
still work under the policy in a real Chromium (no inline handler or style is refused)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from table_service.web.security import CSP


def _csp(resp) -> dict[str, str]:
    header = resp.headers.get("Content-Security-Policy")
    assert header, f"no CSP on {resp.request.path}"
    return {d.split()[0]: " ".join(d.split()[1:]) for d in (p.strip() for p in header.split(";")) if d}


@pytest.mark.parametrize("path", ["/auth/login", "/", "/tables/1", "/tables/1/scoresheet", "/api/tables",
                                  "/api/tables/1/state", "/feed/1/state.json", "/feed/1/overlay", "/nosuch",
                                  "/auth/whoami"])
def test_every_response_has_csp_and_referrer_policy(client, h, path):
    h.login(client, "rita")
    resp = client.get(path)
    policy = _csp(resp)
    assert policy["default-src"] == "'self'"
    assert policy["object-src"] == "'none'" and policy["base-uri"] == "'none'"
    assert "'unsafe-inline'" not in policy["script-src"]
    assert "'unsafe-eval'" not in resp.headers["Content-Security-Policy"]
    assert resp.headers["Referrer-Policy"] == "same-origin"
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    if path.startswith("/feed/"):
        assert policy["frame-ancestors"] == "*"  # OBS embeds the overlay, and injects its custom CSS
        assert policy["style-src"] == "'self' 'unsafe-inline'"
    else:
        assert policy["frame-ancestors"] == "'none'" and resp.headers["X-Frame-Options"] == "DENY"
        assert policy["style-src"] == "'self'"


def test_inline_scripts_carry_this_requests_nonce(client, h):
    h.login(client, "rita")
    nonces = set()
    for _ in range(2):
        resp = client.get("/tables/1")
        nonce = re.search(r"'nonce-([^']+)'", resp.headers["Content-Security-Policy"]).group(1)
        html = resp.get_data(as_text=True)
        inline = re.findall(r"<script(?![^>]*\bsrc=)([^>]*)>", html)
        assert inline and all(f'nonce="{nonce}"' in attrs for attrs in inline)
        nonces.add(nonce)
    assert len(nonces) == 2  # fresh per response


def test_no_template_uses_inline_handlers_or_styles():
    # The policy refuses them; a template that adds one would silently break in the browser.
    root = Path(__file__).resolve().parents[2] / "table_service" / "web"
    for path in [*root.glob("templates/*.html"), *root.glob("static/*.js")]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\son[a-z]+\s*=\s*[\"']", text), f"inline event handler in {path.name}"
        assert not re.search(r"\sstyle\s*=\s*[\"']", text), f"inline style attribute in {path.name}"
        assert "<style" not in text and 'createElement("style")' not in text, f"inline <style> in {path.name}"
    assert "nonce-{nonce}" in CSP


@pytest.mark.browser
def test_panel_and_overlay_work_under_the_policy(app, runner, serve_app, h, open_page):
    h.setup_deal(runner)
    srv = serve_app(app)
    page, _errors = open_page(bypass_csp=False)  # the policy as a browser enforces it
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(f"{srv.url}/auth/login")
    page.fill("#username", "rita")
    page.fill("#password", h.PASSWORD)
    page.click("#login-submit")
    page.goto(f"{srv.url}/tables/1")
    page.wait_for_selector('#app[data-connected="1"]')
    before = page.inner_text("#lang-toggle")
    page.click("#lang-toggle")  # the button's handler is bound by common.js, not onclick=
    h.wait_for(lambda: page.inner_text("#lang-toggle") != before)  # no eval: the CSP refuses it
    page.goto(f"{srv.url}/feed/1/overlay")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("typeof window.LANG") == "string"  # the nonce'd inline script ran
    assert page.evaluate("typeof window.I18N") == "object"  # the words' script (/i18n/<digest>.js) ran
    # ... fetched once: the panel's page had it, the overlay took it from the browser's cache.
    assert page.evaluate("performance.getEntriesByType('resource').filter(e => e.name.includes('/i18n/'))"
                         ".map(e => e.transferSize)") == [0]
    page.add_style_tag(content="body { margin: 0 }")  # as OBS's custom CSS does
    assert refused == []


def test_docs_security_md_names_only_tests_that_exist():
    # Every promise in docs/security.md points at a test; a renamed test must not leave it unproved.
    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / "security.md").read_text(encoding="utf-8")
    refs = re.findall(r"`(tests/[\w/]+\.py)((?:::\w+)?)`", text)
    assert len(refs) > 20
    for path, name in refs:
        source = (root / path).read_text(encoding="utf-8")
        if name:
            assert f"def {name[2:]}(" in source, f"{path}{name} does not exist"
    for name in re.findall(r"`::(\w+)`", text):  # short form: a test of a file named in the same row
        assert any(f"def {name}(" in (root / p).read_text(encoding="utf-8") for p, _ in refs), name
