"""The table's record page: who did what, and what the table refused, by a tap from the panel."""

from __future__ import annotations


def test_the_record_shows_accepted_and_refused_events_newest_first(client, h, runner):
    h.setup_deal(runner)
    h.login(client, "rita")
    ok = h.post_json(client, "/api/tables/1/actions", {"type": "penalty_given", "data": {
        "side": "NS", "level": "warning", "seat": "N", "article": "越序出牌 / playing out of turn"}})
    refused = h.post_json(client, "/api/tables/1/actions", {"type": "penalty_given", "data": {
        "side": "NS", "level": "warning", "seat": "N", "article": "x", "flag": "F99"}})
    assert ok.status_code == 200 and refused.status_code == 422
    page = client.get("/tables/1/record").get_data(as_text=True)
    assert page.index(f'data-seq="{refused.get_json()["seq"]}"') < page.index(f'data-seq="{ok.get_json()["seq"]}"')
    assert "判罚" in page and "越序出牌" in page and "playing out of turn" not in page  # one language
    assert "被拒绝：" in page and "被拒绝: " not in page and 'class="refused"' in page  # the view's colon
    only = client.get("/tables/1/record?refused=1").get_data(as_text=True)
    assert f'data-seq="{refused.get_json()["seq"]}"' in only and f'data-seq="{ok.get_json()["seq"]}"' not in only
    client.set_cookie("lang", "en")
    en = client.get("/tables/1/record").get_data(as_text=True)
    assert "playing out of turn" in en and "penalty" in en and "Rejected: " in en


def test_a_filter_that_is_neither_0_nor_1_is_a_clear_400(client, h, runner):
    """``?refused=zz`` showed every event, as if no filter had been asked for."""
    h.setup_deal(runner)
    h.login(client, "rita")
    assert client.get("/tables/1/record?refused=0").status_code == 200
    for bad in ("zz", "", "yes", "１"):
        resp = client.get("/tables/1/record", query_string={"refused": bad})
        assert resp.status_code == 400, bad
        assert "refused" in resp.get_data(as_text=True) and "0 或 1" in resp.get_data(as_text=True)


def test_the_record_needs_a_login(client, h, runner):
    h.setup_deal(runner)
    resp = client.get("/tables/1/record")
    assert resp.status_code == 302 and "/auth/login" in resp.headers["Location"]


def test_a_refusal_names_the_event_in_words_not_its_internal_name(client, h, runner):
    """The audit: in English the refusal read "round_set_up: the current round has no result yet"."""
    h.setup_deal(runner)
    h.login(client, "rita")
    r = h.post_json(client, "/api/tables/1/actions", {"type": "round_set_up", "data": {
        "players": h.PLAYERS, "ruleset": "jiangsu-2013", "format": {"kind": "deals", "deals": 2}}})
    assert r.status_code == 422 and "round_set_up: the current round" in r.get_json()["error"]  # the API's words stay
    client.set_cookie("lang", "en")
    shown = client.get("/tables/1/record?refused=1").get_data(as_text=True).split("<main>", 1)[1]
    assert "New round: the current round has no result yet" in shown and "round_set_up" not in shown


def test_the_details_say_who_sits_at_a_seat_and_which_team_a_side_is(client, h, runner):
    """The s36 tap audit: the record's details read "seat N; side NS"; the referee reads people."""
    h.setup_deal(runner)
    h.login(client, "rita")
    ok = h.post_json(client, "/api/tables/1/actions", {"type": "penalty_given", "data": {
        "side": "NS", "level": "warning", "seat": "N", "article": "越序出牌 / playing out of turn"}})
    assert ok.status_code == 200
    page = client.get("/tables/1/record").get_data(as_text=True)
    row = page.split(f'data-seq="{ok.get_json()["seq"]}"', 1)[1].split("</tr>", 1)[0]
    # In the page's language: the field names, the penalty, who entered it (the s36 tap audit read
    # "seat 南 S 李娜; level violation; lose_turn True" and "referee" on a Chinese page).
    assert f"座位 北 N {h.PLAYERS['N']}" in row and "方 南北" in row and "处罚 警告" in row
    assert "<td>裁判</td>" in row and "level" not in row and "seat" not in row
    page = client.get("/tables/1/record").get_data(as_text=True)
    setup = page.split('data-seq="1"', 1)[1].split("</tr>", 1)[0]  # the round's set-up: who sits where
    assert f"选手 东 E {h.PLAYERS['E']}" in setup and f"北 N {h.PLAYERS['N']}" in setup
    client.set_cookie("lang", "en")
    row = client.get("/tables/1/record").get_data(as_text=True).split(f'data-seq="{ok.get_json()["seq"]}"', 1)[1]
    row = row.split("</tr>", 1)[0]
    assert f"Seat North {h.PLAYERS['N']}" in row and "Penalty Warning" in row and "<td>referee</td>" in row


def test_a_declared_pattern_a_device_and_its_status_are_said_in_words(client, h, runner):
    """The s38 audit: the record read "牌型 straight; 点数 T" and "设备 camera; 状态 online" on a
    Chinese page."""
    from table_service.web.record import row_of

    declared = {"seq": 9, "type": "reading_declared", "role": "referee",
                "data": {"ref": 8, "kind": "straight", "rank": "T"}}
    device = {"seq": 10, "type": "device_status_changed", "source": "system",
              "data": {"device": "camera", "status": "online"}}
    zh, en = row_of(declared, "zh")["details"], row_of(declared, "en")["details"]
    assert "顺子" in zh and "straight" not in zh and "10" in zh and "T" not in zh
    assert "straight" in en and "10" in en
    zh, en = row_of(device, "zh")["details"], row_of(device, "en")["details"]
    assert "摄像头" in zh and "在线" in zh and "camera" not in zh and "online" not in zh
    assert "camera" in en and "online" in en
