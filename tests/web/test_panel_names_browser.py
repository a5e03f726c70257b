"""The organiser's day by taps (the s36 audit), at the table: the panel said the engine's and the hub's
refusals with ids ("seat E is not on side NS", the hub's "T2 4:2 T1"), and on a 390 px phone its top
bar wrapped into three lines. The panel names seats by their players and sides by their teams (the
hub's assignment gives the names), and keeps the bar on one line. The engine's log keeps its own words.

Real browser (Playwright, Debian's Chromium) on a real table runner served by cheroot."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

TEAMS = {"EW": "T1", "NS": "T2"}
NAMES = {"EW": "南京队", "NS": "常州队"}


class FakeHubLink:
    """What the panel's assignment card reads of the table's MQTT bridge: this round's teams, named."""

    is_connected = True

    def __init__(self, players: dict[str, str]) -> None:
        self.assignment = {"event": "js", "event_name": "江苏赛", "round": 1, "table": "1", "teams": dict(TEAMS),
                           "team_names": dict(NAMES), "players": players, "ruleset": {"preset": "jiangsu-2013"},
                           "format": {"kind": "deals", "deals": 2}}
        self.result_ack = None


def _round_with_teams(runner: Any, h: Any) -> None:
    """The assignment's round, started at the table (its teams by id, as the hub sends them), in play."""
    for ev in ({"type": "round_set_up", "source": "panel", "role": "referee",
                "data": {"players": h.PLAYERS, "teams": TEAMS, "round": 1, "ruleset": "jiangsu",
                         "format": {"kind": "deals", "deals": 2}}},
               {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
               {"type": "drawing_finished", "source": "panel", "data": {}}):
        res = runner.submit(ev)
        assert res.accepted, res.error


def _open(page: Any, make_app: Any, runner: Any, serve_app: Any, h: Any, lang: str) -> Any:
    from table_service.web.tables import attach_table

    app = make_app()
    link = FakeHubLink(h.PLAYERS)
    attach_table(app, "1", runner, hub_link=link)
    srv = serve_app(app)
    page.context.add_cookies([{"name": "lang", "value": lang, "url": srv.url}])
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.wait_for_selector("#assign-card")
    return link


def test_an_engine_refusal_names_the_seat_by_its_player_and_the_side_by_its_team(
        page, make_app, runner, serve_app, h):
    _round_with_teams(runner, h)
    _open(page, make_app, runner, serve_app, h, "en")
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    page.select_option("#penalty-level", "warning")
    page.select_option("#penalty-side", "NS")
    page.select_option("#penalty-seat", "E")
    page.fill("#penalty-article", "5.1")
    page.click("#penalty-submit")
    page.wait_for_selector(".toast.show.bad", timeout=25_000)
    said = page.inner_text("#toast")
    assert f"seat East {h.PLAYERS['E']} is not on side NS {NAMES['NS']}" in said, said
    assert "seat E " not in said
    logged = runner.rejected()[-1]["rejected"]
    assert "seat E is not on side NS" in logged  # the log keeps the engine's own words


def test_the_engines_other_id_phrases_are_said_with_names(page, make_app, runner, serve_app, h):
    """Every engine refusal that names a seat or a side by its id (engine/deal_end.py, penalties.py,
    tribute_phase.py), in the English view; the Chinese halves name none."""
    _round_with_teams(runner, h)
    _open(page, make_app, runner, serve_app, h, "en")
    page.wait_for_function("window.GT && GT.state() && GT.state().round")
    p = h.PLAYERS
    cases = {
        "已签字 / score_sheet_signed: NS has already signed": f"NS {NAMES['NS']} has already signed",
        "此座位不需进贡 / tribute_given: E owes no tribute (payers: S N)":
            f"East {p['E']} owes no tribute (payers: South {p['S']}, North {p['N']})",
        "已还贡 / return_given: W has already returned": f"West {p['W']} has already returned",
        "抗贡座位无效 / anti_tribute_declared: seats must be among the payers ['S', 'N'], got ['E']":
            f"the payers [South {p['S']}, North {p['N']}], got [East {p['E']}]",
        "犯规/判负须由裁判长判罚 / only the chief referee may give a foul or a loss (violation for EW would be a foul)":
            f"(violation for EW {NAMES['EW']} would be a foul)",
    }
    for text, want in cases.items():
        said = page.evaluate("t => GT.refusal(t)", text)
        assert want in said, (text, said)
    # Text that only looks like an id is left alone: "expected E, S, W or N", a card, a number.
    plain = "座位无效 / cards_played: unknown seat 'X' in 'seat' (expected E, S, W or N)"
    assert page.evaluate("t => GT.refusal(t)", plain).endswith("(expected E, S, W or N)")


def test_the_chinese_half_names_the_seats_and_sides_too(page, make_app, runner, serve_app, h):
    """The s38 audit: the players' and teams' names went into the English half alone; a Chinese panel
    said "E 已出完" and "座位 E 不在 NS 一方". Each seat is its word and player, 东（张伟）, each side its
    word and team; a list of every seat's id is left as it is, as in English."""
    _round_with_teams(runner, h)
    _open(page, make_app, runner, serve_app, h, "zh")
    page.wait_for_function("window.GT && GT.state() && GT.state().round")
    p = h.PLAYERS
    cases = {
        "E 已出完，无牌可报 / report_pressed: E has played out; there is nothing to report": f"东（{p['E']}）已出完，无牌可报",
        "座位 E 不在 NS 一方 / penalty_given: seat E is not on side NS": f"座位东（{p['E']}）不在南北（{NAMES['NS']}）一方",
        "抗贡座位须为进贡方 ['S', 'N'] / anti_tribute_declared: seats must be among the payers ['S', 'N']":
            f"抗贡座位须为进贡方 [南（{p['S']}）、北（{p['N']}）]",
        "东 E 已还贡 / return_given: W has already returned": f"东（{p['E']}）已还贡",
        "NS 已签字 / score_sheet_signed: NS has already signed": f"南北（{NAMES['NS']}）已签字",
        "第 1 轮 1 号桌已有成绩 T2 4:2 T1 / x": f"第 1 轮 1 号桌已有成绩 {NAMES['NS']} 4:2 {NAMES['EW']}",
    }
    for text, want in cases.items():
        said = page.evaluate("t => GT.refusal(t)", text)
        assert said == want, (text, said)
    for plain in ("座位应为 E、S、W 或 N / cards_played: expected E, S, W or N", "级牌 T，Th 为逢人配 / x"):
        assert page.evaluate("t => GT.refusal(t)", plain) == plain.split(" / ")[0]


def test_the_hubs_refusal_of_the_tables_result_names_the_teams(page, make_app, runner, serve_app, h):
    _round_with_teams(runner, h)
    link = _open(page, make_app, runner, serve_app, h, "zh")
    link.result_ack = {"result_id": "r1-s40", "status": "refused", "round": 1,
                       "reason": "第 1 轮 1 号桌已有成绩 T2 4:2 T1（rita 15:13），改动须走纠正 / table 1 already has a "
                                 "result for round 1: T2 4:2 T1 (rita, 15:13); a change is a correction"}
    page.wait_for_selector('#assign-card .assign-ack[data-status="refused"]', timeout=15_000)
    said = page.inner_text("#assign-card .assign-ack")
    assert f"已有成绩 {NAMES['NS']} 4:2 {NAMES['EW']}（rita" in said, said
    assert "T2" not in said and "T1" not in said


def test_the_panels_top_bar_keeps_one_line_on_a_phone(open_page, make_app, runner, serve_app, h, small_controls,
                                                      one_line):
    """The bar wrapped into three lines at 390 px (the brand in two, 退出 a letter a line): the chief's,
    the widest (its 账号 link too)."""
    _round_with_teams(runner, h)
    page, errors = open_page(390, 844, mobile=True)
    app = make_app(TABLES={"1": runner})
    srv = serve_app(app)
    h.open_table(page, srv.url, "chen", h.PASSWORD)
    assert one_line(page, ".topbar") is None
    assert small_controls(page, ".topbar") == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert errors == []


def test_the_forms_seat_and_side_choices_name_the_player_and_the_team(page, make_app, runner, serve_app, h):
    """The penalty form offered "E" and "NS": the referee had to know who sat East and which team NS was.
    Each choice now says it, and still sends the seat's or the side's id."""
    _round_with_teams(runner, h)
    _open(page, make_app, runner, serve_app, h, "zh")
    page.wait_for_function("document.querySelector('#penalty-seat option[value=E]').textContent.includes("
                           f"{h.PLAYERS['E']!r})")
    seats = page.eval_on_selector_all("#penalty-seat option", "os => os.map(o => [o.value, o.textContent])")
    assert [v for v, _ in seats] == ["", "E", "S", "W", "N"]
    assert all(h.PLAYERS[v] in text and v in text for v, text in seats if v)
    sides = dict(page.eval_on_selector_all("#penalty-side option", "os => os.map(o => [o.value, o.textContent])"))
    assert sides == {"EW": f"东西 {NAMES['EW']}", "NS": f"南北 {NAMES['NS']}"}
    leaders = page.eval_on_selector_all("#penalty-next-leader option", "os => os.map(o => o.textContent)")
    assert h.PLAYERS["W"] in " ".join(leaders)
    page.select_option("#penalty-seat", "W")  # still chosen by its id
    assert page.eval_on_selector("#penalty-seat", "s => s.value") == "W"


#: Names longer than a phone's half line: the levels cut them (ellipsis), never break the line.
LONG = {"EW": "南京市玄武区老年大学掼蛋协会第一代表队", "NS": "常州市天宁区红梅街道掼蛋爱好者联合会代表队"}


def test_the_levels_name_the_teams_on_one_line_on_a_phone(open_page, make_app, runner, serve_app, h, one_line):
    """The status bar and the score sheet said "EW 2 · NS 4": the referee had to know which team sat
    East-West. They name the teams (the hub's names), long ones cut to keep one line on a 390 px phone."""
    _round_with_teams(runner, h)
    page, errors = open_page(390, 844, mobile=True)
    from table_service.web.tables import attach_table

    app = make_app()
    link = FakeHubLink(h.PLAYERS)
    link.assignment["team_names"] = dict(LONG)
    attach_table(app, "1", runner, hub_link=link)
    srv = serve_app(app)
    h.open_table(page, srv.url, "chen", h.PASSWORD)
    page.wait_for_function(f"document.getElementById('levels').textContent.includes({LONG['NS']!r})")
    for bar in ("#levels", "#sheet-levels"):
        if bar == "#sheet-levels":  # the score sheet, after the chief's foul ended the deal (NS +3)
            r = runner.submit({"type": "penalty_given", "source": "panel", "role": "chief", "data": {
                "side": "EW", "level": "foul", "seat": "E", "article": "藏牌", "next_leader": "N"}})
            assert r.accepted, r.error
            page.goto(f"{srv.url}/tables/1/scoresheet")
            page.wait_for_function(f"document.getElementById('sheet-levels').textContent.includes({LONG['NS']!r})")
        parts = page.eval_on_selector_all(f"{bar} .lv-side", "ps => ps.map(p => [p.dataset.side, p.innerText, "
                                          "p.querySelector('.side-label').title])")
        assert [(side, title) for side, _, title in parts] == [("EW", LONG["EW"]), ("NS", LONG["NS"])], parts
        assert "EW" not in page.inner_text(bar) and "NS" not in page.inner_text(bar)
        assert one_line(page, bar) is None
        cut = page.eval_on_selector_all(f"{bar} .side-label", "ls => ls.map(l => l.scrollWidth > l.clientWidth)")
        assert cut == [True, True]  # a long name gives way, whole in its title
        right = page.eval_on_selector(bar, "b => b.getBoundingClientRect().right")
        assert right <= 390
    after = page.eval_on_selector_all('#sheet-rows tr[data-deal="1"] .levels-after .lv-side', "ls => ls.map(l => "
                                      "[l.querySelector('.side-label').title, l.querySelector('.lv-level').textContent])")
    assert after == [[LONG["EW"], "2"], [LONG["NS"], "5"]]  # the levels after the deal, by team
    assert errors == []


def test_without_teams_the_levels_name_the_sides_in_words(page, app, runner, serve_app, h):
    """A round set up without teams: the sides in the page's language (东西, English EW), not the ids."""
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.wait_for_selector("#levels .lv-side")
    assert page.inner_text("#levels").split() == ["级数", "东西", "2", "·", "南北", "2"]
    page.click("#lang-toggle")
    assert page.inner_text("#levels").split() == ["Levels", "EW", "2", "·", "NS", "2"]


def test_the_drawing_and_anti_tribute_forms_name_each_seats_player(page, make_app, runner, serve_app, h):
    """The drawing form's card counts and the anti-tribute's check boxes said "E S W N": each seat is
    said with its player, as the other forms' seat choices are, and still sends its id."""
    _round_with_teams(runner, h)
    _open(page, make_app, runner, serve_app, h, "zh")
    page.wait_for_function(f"document.querySelector('#f-anti .seat-named').textContent.includes({h.PLAYERS['E']!r})")
    for form in ("#f-draw", "#f-anti"):
        said = page.eval_on_selector_all(f"{form} label:has(.seat-named)", "ls => ls.map(l => [l.querySelector("
                                         "'input').name, l.querySelector('input').value, l.innerText.trim()])")
        assert len(said) == 4, said
        for name, value, text in said:
            seat = name.split(".")[-1] if name.startswith("counts.") else value
            assert text == f"{'东南西北'['ESWN'.index(seat)]} {seat} {h.PLAYERS[seat]}", said
    holders = page.eval_on_selector_all("#f-draw select[name=cut_card_holder] option",
                                        "os => os.map(o => [o.value, o.textContent])")
    assert all(h.PLAYERS[v] in text for v, text in holders if v), holders
    page.click("#lang-toggle")
    assert page.inner_text("#f-anti label:has(input[value=E])").strip() == f"East {h.PLAYERS['E']}"
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    page.check("#f-anti input[value=S]")
    page.check("#f-anti input[value=N]")
    assert page.evaluate("GT.formData(document.getElementById('f-anti')).seats") == ["S", "N"]


def _ended_with_long_names(runner: Any, h: Any, make_app: Any, serve_app: Any) -> Any:
    """The assignment's round with LONG team names, its deal ended by the chief's foul on East-West
    (North-South +3, 10 : 16) after a warning, and the round ended: every part of the sheet has a side."""
    from table_service.web.tables import attach_table

    _round_with_teams(runner, h)
    for ev in ({"type": "penalty_given", "source": "panel", "role": "referee", "data": {
                    "side": "EW", "level": "warning", "seat": "E", "article": "5.1"}},
               {"type": "penalty_given", "source": "panel", "role": "chief", "data": {
                    "side": "EW", "level": "foul", "seat": "E", "article": "藏牌", "next_leader": "N"}},
               {"type": "round_ended", "source": "panel", "role": "referee", "data": {}}):
        r = runner.submit(ev)
        assert r.accepted, r.error
    app = make_app()
    link = FakeHubLink(h.PLAYERS)
    link.assignment["team_names"] = dict(LONG)
    attach_table(app, "1", runner, hub_link=link)
    return serve_app(app)


def _words(page: Any, selector: str) -> str:
    return " ".join(page.text_content(selector).split())


#: Each line of the sheet that names a side, as [selector, text, titles of its team names, lines of text,
#: any name cut, right edge]: one line each, every name whole in a title.
SIDE_LINES_JS = """els => els.map(e => {
  const lines = new Set(), walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    if (!t.data.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(t);
    Array.from(range.getClientRects()).forEach(r => { if (r.width) lines.add(Math.round(r.top)); });
  }
  const labels = [...e.querySelectorAll('.side-label')];
  return [e.textContent.split(/\\s+/).join(' ').trim(), labels.map(l => l.title), lines.size,
          labels.some(l => l.scrollWidth > l.clientWidth), e.getBoundingClientRect().right];
})"""


def test_the_score_sheet_names_every_side_by_its_team_on_a_phone(open_page, make_runner, make_app, serve_app, h):
    """The sheet said "NS +3", "EW:NS", "EW" for a penalty, "EW 10 : NS 16", "EW: ✓" and "签字 EW": the
    players who sign had to know which team sat East-West. Every side is its team now, one line on a
    390 px phone (a long name cut, whole in its title), and a signature says which team signs."""
    runner = make_runner()
    srv = _ended_with_long_names(runner, h, make_app, serve_app)
    page, errors = open_page(390, 844, mobile=True)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.goto(f"{srv.url}/tables/1/scoresheet")
    # The signature boxes are drawn by scoresheet.js once the state comes: absent until then.
    page.wait_for_function(f"(document.getElementById('sign-NS') || {{textContent: ''}}).textContent"
                           f".includes({LONG['NS'][:6]!r})")
    ew, ns = LONG["EW"], LONG["NS"]
    parts = {
        "gain": ('#sheet-rows tr[data-deal="1"] td.gain .side-line', [ns]),
        "diff": ('#sheet-rows tr[data-deal="1"] td.level-diff .diff-lead', [ns]),
        "diff head": ("#level-diff-sides .side-line", [ew, ns]),
        "penalties": ("#sheet-penalties td.penalty-side .side-line", [ew]),
        "winner": ("#sheet-result .winner", [ns]),
        "points": ("#sheet-result .level-points", [ew, ns]),
        "match points": ("#sheet-result .match-points", [ew, ns]),
        "signatures": ("#signatures .sig-head", [ew, ns]),
        "sign buttons": ("#signatures button", [ew, ns]),
    }
    box_right = page.eval_on_selector("#app > section.box", "b => b.getBoundingClientRect().right")
    assert box_right <= 390 and page.eval_on_selector("#sheet", "t => t.getBoundingClientRect().right") <= box_right
    for what, (selector, names) in parts.items():
        lines = page.eval_on_selector_all(selector, SIDE_LINES_JS)
        assert lines, what
        titles = [t for line in lines for t in line[1]]
        assert titles == names or titles == names * len(lines), (what, lines)  # the penalties: a line each
        for text, _, n, _, right in lines:
            # One line (in the sheet's narrow columns the name keeps its line, the "+3" may go below it).
            assert n == 1 or selector.startswith(("#sheet-rows", "#level-diff")), (what, text)
            assert "EW" not in text.split() and "NS" not in text.split(), (what, text)
            assert right <= box_right, (what, text, right)
    assert all(cut for _, _, _, cut, _ in page.eval_on_selector_all(parts["signatures"][0], SIDE_LINES_JS))
    assert _words(page, '#sheet-rows tr[data-deal="1"] td.level-diff .diff-points') == "10 : 16"  # EW's first
    assert _words(page, "#sheet-result .level-points") == f"级差分: {ew} 10 : {ns} 16"
    assert _words(page, "#sheet-result .winner") == f"结果: {ns} (中止)"
    heads = page.eval_on_selector_all("#signatures .sig-head .side-team", "ts => ts.map(t => t.title)")
    assert heads == [f"东西 · {ew}", f"南北 · {ns}"]  # which team signs, the side too
    assert _words(page, "#sign-EW .sig-head").startswith("东西 · ") and _words(page, "#sign-EW .sig-head").endswith(" 签字")
    assert page.eval_on_selector("#sign-EW button", "b => b.getBoundingClientRect().height") >= 44
    page.click("#sign-NS button")  # still the side's id sent
    page.wait_for_selector('#sign-NS[data-signed="1"]')
    assert runner.state()["signatures"] == {"EW": False, "NS": True}
    assert "已签字" in _words(page, "#sign-NS") and ns[:6] in _words(page, "#sign-NS")
    assert errors == []


def test_the_printed_sheet_fits_its_page_with_the_teams_signature_lines(open_page, make_runner, make_app, serve_app,
                                                                        h):
    """On paper (A4 portrait: 190 mm between the margins, 718 px) the sheet with long team names keeps
    to the page's width and to one page; each signature line names its team, no button or bar prints."""
    runner = make_runner()
    srv = _ended_with_long_names(runner, h, make_app, serve_app)
    page, errors = open_page(718, 1000)
    h.open_table(page, srv.url, "chen", h.PASSWORD)
    page.goto(f"{srv.url}/tables/1/scoresheet")
    # The signature boxes are drawn by scoresheet.js once the state comes: absent until then.
    page.wait_for_function(f"(document.getElementById('sign-NS') || {{textContent: ''}}).textContent"
                           f".includes({LONG['NS'][:6]!r})")
    page.emulate_media(media="print")
    assert page.evaluate("document.documentElement.scrollWidth") <= 718
    assert page.eval_on_selector("#sheet", "t => t.getBoundingClientRect().right") <= 718
    for side, word in (("EW", "东西"), ("NS", "南北")):
        head = f"#sign-{side} .sig-head"
        assert page.is_visible(head) and _words(page, head).startswith(word + " · ")
        assert page.eval_on_selector(head + " .side-team", "t => t.title") == f"{word} · {LONG[side]}"
        assert page.eval_on_selector(f"#sign-{side} .sig-line", "l => getComputedStyle(l).borderBottomStyle") == "solid"
        assert not page.is_visible(f"#sign-{side} button")
    assert not page.is_visible(".topbar")
    pdf = page.pdf(format="A4", margin={"top": "10mm", "bottom": "10mm", "left": "10mm", "right": "10mm"})
    import re

    assert len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf)) == 1  # one page
    assert errors == []


def test_the_panel_names_the_seats_sides_and_the_sign_buttons_by_team_on_a_phone(
        open_page, make_runner, make_app, serve_app, h):
    """The seat boxes said "EW" / "NS" and the next step's buttons "签字 · EW": by team now (the names the
    hub's assignment gave, arriving after the state), one line on a 390 px phone, each tap still the side's id."""
    runner = make_runner()
    srv = _ended_with_long_names(runner, h, make_app, serve_app)
    page, errors = open_page(390, 844, mobile=True)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.wait_for_function(f"document.querySelector('#next-step .step-sign').textContent.includes({LONG['EW'][:6]!r})")
    tags = page.eval_on_selector_all(".seat-head .side-tag", "ts => ts.map(t => [t.dataset.side, t.title, "
                                     "t.scrollWidth > t.clientWidth, t.getBoundingClientRect().right <= "
                                     "t.closest('.seat-inner').getBoundingClientRect().right + 0.5, t.textContent])")
    assert sorted((s, title) for s, title, *_ in tags) == [("EW", LONG["EW"])] * 2 + [("NS", LONG["NS"])] * 2, tags
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert all(cut and inside for _, _, cut, inside, _ in tags), tags
    buttons = page.eval_on_selector_all("#next-step .step-sign", SIDE_LINES_JS)
    assert [names for _, names, *_ in buttons] == [[LONG["EW"]], [LONG["NS"]]], buttons
    for text, _, lines, cut, right in buttons:
        assert text.startswith("签字 · ") and lines == 1 and cut and right <= 390, (text, lines, cut, right)
    assert page.eval_on_selector_all("#next-step .step-sign", "bs => bs.map(b => b.title)") == [
        f"签字 · 东西 · {LONG['EW']}", f"签字 · 南北 · {LONG['NS']}"]
    assert min(page.eval_on_selector_all("#next-step .step-sign", "bs => bs.map(b => b.getBoundingClientRect().height)")) >= 44
    page.click('#next-step .step-sign[data-side="NS"]')
    h.wait_for(lambda: runner.state()["signatures"] == {"EW": False, "NS": True})
    page.click("#lang-toggle")
    page.wait_for_function("document.querySelector('#next-step .step-sign').textContent.startsWith('Sign for')")
    assert errors == []


def test_the_round_forms_teams_and_starting_levels_name_the_sides(page, app, runner, serve_app, h):
    """The new-round form said "EW" / "NS" by its team fields and starting levels: the team fields are
    the sides in words, the starting levels each the team typed above (the side while none is), and the
    form still sends teams.EW and levels.EW."""
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.wait_for_selector('#next-step .steps[data-step="none"]')
    page.click("#next-step .step-setup")
    labels = "fs => fs.map(l => l.innerText.trim())"
    assert page.eval_on_selector_all("#f-setup label:has(input[name^='teams.'])", labels) == ["东西", "南北"]
    assert page.eval_on_selector_all("#f-setup .setup-side", "ss => ss.map(s => s.textContent)") == ["东西", "南北"]
    for seat, name in h.PLAYERS.items():
        page.fill(f'#f-setup [name="players.{seat}"]', name)
    page.fill('#f-setup [name="teams.EW"]', "江苏")
    page.fill('#f-setup [name="teams.NS"]', LONG["NS"])
    sides = page.eval_on_selector_all("#f-setup .setup-side", "ss => ss.map(s => [s.dataset.side, s.textContent, "
                                      "s.title, s.scrollWidth > s.clientWidth])")
    assert sides == [["EW", "江苏", "江苏", False], ["NS", LONG["NS"], LONG["NS"], True]]
    page.click("#lang-toggle")
    assert page.eval_on_selector_all("#f-setup label:has(input[name^='teams.'])", labels) == ["EW", "NS"]
    page.fill('#f-setup [name="teams.EW"]', "")
    assert page.eval_on_selector_all("#f-setup .setup-side", "ss => ss.map(s => s.textContent)") == ["EW", LONG["NS"]]
    page.fill('#f-setup [name="teams.EW"]', "江苏")
    page.fill('#f-setup [name="levels.EW"]', "5")
    page.fill('#f-setup [name="levels.NS"]', "3")
    page.click("#f-setup button[type=submit]")
    h.wait_for(lambda: runner.state()["round"] is not None)
    st = runner.state()
    assert st["round"]["teams"] == {"EW": "江苏", "NS": LONG["NS"]} and st["levels"] == {"EW": "5", "NS": "3"}
