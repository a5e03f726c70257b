"""The panel's HTML pages and their role rules (rendering only; the browser tests drive them)."""

from __future__ import annotations


def test_index_lists_tables(client, h):
    h.login(client, "vera")
    html = client.get("/").get_data(as_text=True)
    assert "/tables/1" in html and "比赛桌" in html


def test_viewer_sees_table_without_actions(client, h):
    h.login(client, "vera")
    resp = client.get("/tables/1")
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    assert 'id="trick"' in html and 'id="flags"' in html
    assert 'id="actions"' not in html


def test_referee_sees_actions_but_foul_disabled(client, h):
    h.login(client, "rita")
    html = client.get("/tables/1").get_data(as_text=True)
    assert 'id="actions"' in html
    # The chief's levels say so in the view's brackets (it read "犯规 (仅裁判长)"); the form's words are
    # 处罚等级 for the field and 判罚 for the act (the s38 terms).
    assert '<option value="foul" data-i18n="foul_chief" disabled>犯规（仅裁判长）</option>' in html
    assert '<option value="loss" data-i18n="loss_chief" disabled>判负（仅裁判长）</option>' in html
    assert '<h3 data-i18n="give_penalty">判罚</h3>' in html and '<span data-i18n="penalty_level">处罚等级</span>' in html


def test_chief_may_choose_foul(client, h):
    h.login(client, "chen")
    html = client.get("/tables/1").get_data(as_text=True)
    assert '<option value="foul" data-i18n="foul_chief">犯规（仅裁判长）</option>' in html
    client.set_cookie("lang", "en")
    html = client.get("/tables/1").get_data(as_text=True)
    assert '<option value="foul" data-i18n="foul_chief">Foul (chief referee only)</option>' in html


def test_scoresheet_page(client, h):
    h.login(client, "vera")
    resp = client.get("/tables/1/scoresheet")
    assert resp.status_code == 200 and 'id="sheet-rows"' in resp.get_data(as_text=True)


def test_english_toggle_cookie(client, h):
    h.login(client, "vera")
    client.set_cookie("lang", "en")
    html = client.get("/tables/1").get_data(as_text=True)
    assert "Current trick" in html and 'lang="en"' in html


def test_login_page_has_csrf_field_and_no_framing(make_app):
    c = make_app().test_client()
    resp = c.get("/auth/login")
    assert 'name="csrf_token"' in resp.get_data(as_text=True)
    assert resp.headers["X-Frame-Options"] == "DENY"


def test_unknown_table_page_is_404_html(client, h):
    h.login(client, "vera")
    resp = client.get("/tables/nope")
    assert resp.status_code == 404 and "unknown table" in resp.get_data(as_text=True)


def test_attach_table_validates_ids(make_app, runner):
    import pytest

    from table_service.web.tables import attach_table

    app = make_app(TABLES={"1": runner})
    with pytest.raises(ValueError, match="already attached"):
        attach_table(app, "1", runner)
    with pytest.raises(ValueError, match="invalid table id"):
        attach_table(app, "../x", runner)


def test_every_label_used_by_pages_and_scripts_exists():
    """A label key missing from the table would show the raw key after the language toggle."""
    import re
    from pathlib import Path

    from table_service.web.words import STRINGS

    root = Path(__file__).resolve().parents[2] / "table_service" / "web"
    used: set[str] = set()
    for f in (root / "templates").glob("*.html"):
        text = f.read_text(encoding="utf-8")
        used |= set(re.findall(r'data-i18n="([^"{]+)"', text)) | set(re.findall(r"t\('([^']+)'\)", text))
    for f in (root / "static").glob("*.js"):
        used |= set(re.findall(r'GT\.t\("([^"]+)"\)', f.read_text(encoding="utf-8")))
    assert used, "no labels found: the scan is broken"
    assert sorted(k for k in used if k not in STRINGS) == []
    assert all(zh and en for zh, en in STRINGS.values())


def test_the_error_pages_back_link_is_in_both_languages_and_leads_back(client, h):
    """The audit: 返回 alone (the page's message is in both languages), always to "/". It says
    返回 / Back and leads to the page of this server the referee came from, else the table list."""
    import re

    h.login(client, "vera")

    def back(**headers):
        page = client.get("/tables/nope", headers=headers).get_data(as_text=True)
        m = re.search(r'<a class="back" id="error-back" href="([^"]*)">([^<]*)</a>', page)
        assert m and m.group(2) == "返回 / Back", page
        return m.group(1)

    assert back(Referer="http://localhost/tables/1") == "/tables/1"
    assert back() == "/"
    assert back(Referer="https://elsewhere.example/tables/1") == "/"
    client.set_cookie("lang", "en")
    assert 'data-i18n="back"' not in client.get("/tables/nope").get_data(as_text=True)  # the toggle keeps both


def test_the_pages_words_are_one_script_the_browser_keeps(client, h):
    """Every page inlined ~40 KB of words (window.I18N); now they come from one script whose address
    names its content, served by the app itself (a table's panel has no internet) and kept for good
    (immutable, even behind a login, where the pages are no-store); the page keeps only its language."""
    import gzip
    import json
    import re

    from table_service.web.words import STRINGS

    h.login(client, "vera")
    for path in ("/tables/1", "/feed/1/overlay?lang=en"):
        html = client.get(path).get_data(as_text=True)
        assert "window.I18N" not in html and len(html) < 20_000, (path, len(html))
        src = re.findall(r'<script src="(/i18n/[0-9a-f]{16}\.js)"></script>', html)
        assert len(src) == 1 and re.search(r'<script nonce="[^"]+">window.LANG = "(zh|en)";</script>', html), path
    resp = client.get(src[0])
    assert resp.status_code == 200 and resp.mimetype == "text/javascript"
    assert resp.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    body = resp.get_data(as_text=True)
    assert body.startswith("window.I18N = ") and json.loads(body[len("window.I18N = "):].rstrip(";\n")) == {
        k: list(v) for k, v in STRINGS.items()}
    zipped = client.get(src[0], headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip" and gzip.decompress(zipped.data) == resp.data
    assert client.get("/i18n/0123456789abcdef.js").status_code == 404  # another version of the words
