"""The outsider's sweep of the broadcast side (the s43 feed audit): a deal played by four bots through
the real runner, with the referee's business woven in (a call with a reason, a card exposed from a
hand, a flag confirmed and one dismissed with notes, a penalty with a note, a misread corrected, a
camera question confirmed, a void with a reason), and after each step every page a visitor without a
login reaches fetched: nothing of a card before it was shown and its delay passed, nothing early,
no referee's words, no account, and no write.

The other tests check each part (the projection, the delay, the flags); this one checks that no page
of the table app puts them together wrongly. The clock is the runner's and the feed's, moved by the
test (docs/security.md §3)."""

from __future__ import annotations

import json
import re
from typing import Any

from table_service.engine.self_play import SelfPlayTable

DELAY_S = 30
PAGES = ["/", "/auth/login", "/auth/whoami", "/feed/", "/feed/1/clock.json", "/feed/1/commentator",
         "/feed/1/events.json", "/feed/1/events.json?after=0", "/feed/1/overlay", "/feed/1/state.json",
         "/tables/1", "/tables/1/scoresheet", "/feed/9/state.json", "/feed/1/nope",
         "/feed/1/events.json?after=zz"]
LIVE = ["/api/tables", "/api/tables/1/state", "/api/tables/1/events", "/api/tables/1/clock",
        "/api/tables/1/events/5/crop", "/api/tables/1/assignment", "/tables/1/record"]
WRITES = ["/api/tables/1/actions", "/api/tables/1/feed/release", "/api/tables/1/enroll/start",
          "/api/tables/1/camera/relearn", "/accounts/add", "/feed/1/state.json", "/feed/1/events.json"]
#: What only the referees may read: the notes and reasons typed below, accounts, the Pi's files.
SECRETS = ("NOTE-S43", "REASON-S43", "rita", "chen", "vera", "/tmp", "Traceback", "data:image",
           "confidence", "uncertain", "sqlite3")
CARD = re.compile(r'"((?:[2-9TJQKA][shdc])|BJ|SJ)"')


def test_no_public_page_shows_a_hidden_card_an_early_event_or_a_referees_word(make_app, make_runner, h):
    clock = h.FakeClockMs()
    runner = make_runner(clock=clock)
    app = make_app(TABLES={"1": runner}, FEED_CLOCK=clock, FEED_DELAY_S=DELAY_S)
    visitor = app.test_client()
    token = visitor.get("/auth/whoami").get_json()["csrf_token"]
    shown: list[tuple[int, str]] = []  # (t_ms, card) each card the table showed, when

    def submit(ev: dict[str, Any], after_ms: int = 100) -> int:
        clock.advance(after_ms)
        res = runner.submit({k: ev[k] for k in ("type", "source", "role", "data") if ev.get(k) is not None})
        assert res.accepted, (ev["type"], res.error)
        return runner.events()[-1]["seq"]

    def sweep(step: str) -> None:
        now = clock()
        due = [e for e in runner.events() if e["t_ms"] + DELAY_S * 1000 <= now]
        due_seq = due[-1]["seq"] if due else 0
        public_cards = {c for t, c in shown if t + DELAY_S * 1000 <= now}
        for url in PAGES:
            resp = visitor.get(url)
            body = resp.get_data(as_text=True)
            assert resp.status_code < 500, (step, url)
            for secret in SECRETS:
                assert secret not in body, (step, url, secret)
            hidden = set(CARD.findall(body)) - public_cards
            assert not hidden, (step, url, hidden)
            if url == "/feed/1/state.json":
                assert (json.loads(body)["state"]["last_seq"] or 0) <= due_seq, step
            if url == "/feed/1/events.json":
                assert all(e["seq"] <= due_seq for e in json.loads(body)["events"]), step
        for url in LIVE:
            assert visitor.get(url, headers={"Accept": "application/json"}).status_code in (302, 401), (step, url)
        logged = h.logged_rows(runner)
        for url in WRITES:
            for method in ("post", "put", "delete"):
                resp = getattr(visitor, method)(url, json={"type": "passed", "data": {"seat": "N"}},
                                                headers={"X-CSRF-Token": token})
                assert resp.status_code in (302, 401, 405), (step, method, url, resp.status_code)
                assert not any(s in resp.get_data(as_text=True) for s in SECRETS), (step, method, url)
        assert h.logged_rows(runner) == logged, step

    bots = SelfPlayTable(5, step_ms=(500, 4000))
    last_t = bots.t
    woven: set[str] = set()
    for n, ev in enumerate(bots.run_deals(2)):
        gap, last_t = ev["t_ms"] - last_t, ev["t_ms"]
        data = ev["data"]
        if ev["type"] == "cards_played" and len(data["cards"]) == 1 and shown and "misread" not in woven:
            woven.add("misread")  # read as a card already shown, corrected to the one played
            ref = submit({**ev, "data": {**data, "cards": [shown[0][1]]}}, gap)
            submit({"type": "play_corrected", "source": "panel", "role": "referee",
                    "data": {"ref": ref, "cards": data["cards"]}})
        elif ev["type"] == "cards_played" and n > 40 and "question" not in woven:
            woven.add("question")  # the camera's doubt, confirmed by the referee
            ref = submit({**ev, "data": {**data, "uncertain": True}}, gap)
            submit({"type": "play_confirmed", "source": "panel", "role": "referee", "data": {"ref": ref}})
        else:
            submit(ev, gap)
        if ev["type"] == "cards_played":
            shown.extend((clock(), c) for c in data["cards"])
        elif ev["type"] in ("first_cut_recorded", "tribute_given", "return_given"):
            shown.append((clock(), data["card"]))
        elif ev["type"] == "anti_tribute_declared":
            shown.extend((clock(), c) for c in data["cards"])
        if ev["type"] == "passed" and n > 20 and "referee" not in woven:
            woven.add("referee")
            seat = data["seat"]
            submit({"type": "referee_called", "source": "screen", "data": {"seat": seat, "reason": "REASON-S43"}})
            submit({"type": "card_exposed", "source": "camera",
                    "data": {"card": str(bots.hands[seat][0]), "seat": seat}})
            flags = [f["id"] for f in runner.state()["flags"] if f["status"] == "open"]
            assert len(flags) >= 2
            submit({"type": "flag_confirmed", "source": "panel", "role": "referee",
                    "data": {"flag": flags[1], "note": "NOTE-S43"}})
            submit({"type": "flag_dismissed", "source": "panel", "role": "referee",
                    "data": {"flag": flags[0], "note": "NOTE-S43"}})
            submit({"type": "penalty_given", "source": "panel", "role": "referee",
                    "data": {"side": "NS", "level": "warning", "article": "6.1", "seat": "N", "flag": flags[1],
                             "note": "NOTE-S43"}})
            submit({"type": "referee_called", "source": "screen", "data": {"seat": seat}})
            submit({"type": "event_voided", "source": "panel", "role": "referee",
                    "data": {"ref": runner.events()[-1]["seq"], "reason": "REASON-S43"}})
            sweep(f"referee business at event {n}")
        if n % 25 == 0 or ev["type"] not in ("cards_played", "passed", "report_pressed"):
            sweep(f"event {n} ({ev['type']})")
    assert woven == {"misread", "question", "referee"}
    for _ in range(3):  # the delay passes: the whole of it is public, still nothing more
        clock.advance(DELAY_S * 1000 // 2)
        sweep("after the delay")
    assert visitor.get("/feed/1/state.json").get_json()["state"]["last_seq"] == runner.events()[-1]["seq"]
