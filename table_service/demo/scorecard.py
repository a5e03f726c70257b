"""The demo's scorecard: the engine's record compared with what the bots really did.

:func:`compare_with_log` counts camera reads, referee questions and flags against the bots'
:class:`~table_service.demo.bots.TruthLog`; :func:`format_summary` prints it (the headless demo's
closing report, and the one printed when the demo is stopped).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from table_service.demo.bots import TruthLog
from table_service.engine.errors import halves
from table_service.engine.flags import ARTICLES

#: Which flag rule each injected mistake should raise.
MISTAKE_FLAGS: dict[str, str] = {
    "out_of_turn": "out_of_turn",
    "missed_report": "report_missing",
    "slow": "time_over",
    "non_beating": "does_not_beat",
}
#: Flags that are not violations by a player: a referee call, the engine asking the chief
#: (``penalty_escalation``), and the next player's choice of the turn a ladder's automatic violation takes
#: (``lose_turn_choice``: a second missed report card of one side raises it, after its own flag).
NEUTRAL_FLAGS: frozenset[str] = frozenset({"referee_call", "penalty_escalation", "lose_turn_choice"})


def compare_with_log(truth: TruthLog, events: list[dict[str, Any]], flags: list[dict[str, Any]]) -> dict[str, Any]:
    """The demo's scorecard: how the engine's record (camera reads, questions, flags) compares
    with what the bots really did.

    * ``plays``: bot plays; ``read_right``: plays whose camera read was right as read (certain and
      equal to the truth); ``asked``: plays that became a referee question; ``wrong_certain``:
      plays read wrongly *without* doubt (silent errors: should be 0); ``missing``: plays the
      engine has no camera event for; ``by_deal``: per deal, the camera's plays and how many were
      asked (the reader learns the deck while it plays: the share asked should fall deal by deal).
    * ``flags``: flags raised per rule; ``mistakes``: mistakes injected per kind; ``flag_match``:
      whether every injected mistake raised its flag and no other (non-neutral) flag was raised —
      matched one by one (rule, seat and deal), not by totals, so one missed flag and one stray
      flag of the same rule do not cancel out; ``unmatched``: what did not match, each with why.
    """
    by_seq = {e["seq"]: e for e in events}
    plays = [p for p in truth.plays if p.get("seq") is not None]
    read_right = asked = wrong_certain = 0
    cards_total = cards_right = 0
    by_deal: dict[int, list[int]] = {}
    wrong: list[str] = []
    for p in plays:
        ev = by_seq.get(p["seq"])
        if ev is None or ev["type"] != "cards_played":
            continue
        d = ev["data"]
        seen = list(d.get("cards") or [])
        if ev.get("source") != "camera":
            continue
        cards_total += len(p["cards"])
        if len(seen) == len(p["cards"]):
            cards_right += sum(1 for a, b in zip(seen, p["cards"], strict=True) if a == b)
        deal = by_deal.setdefault(int(p.get("deal") or 0), [0, 0])
        deal[0] += 1
        if d.get("uncertain"):
            deal[1] += 1
            asked += 1
        elif seen == p["cards"]:
            read_right += 1
        else:
            wrong_certain += 1
            wrong.append(f"#{p['seq']} {p.get('seat')} deal {p.get('deal')}: {' '.join(p['cards'])} read as {' '.join(seen) or '-'}")
    missing = len(truth.plays) - len(plays)
    transfers = _transfer_reads(truth, by_seq)
    mistakes = Counter(m["mistake"] for m in truth.mistakes)
    raised = Counter(f["rule"] for f in flags if f.get("status") != "withdrawn")
    expected = Counter({MISTAKE_FLAGS[k]: n for k, n in mistakes.items()})
    unmatched = match_flags(truth.mistakes, flags, events, truth.entries)
    return {
        "plays": len(truth.plays),
        "read_right": read_right,
        "asked": asked,
        "wrong_certain": wrong_certain,
        "wrong_certain_plays": wrong,
        "missing": missing,
        "by_deal": [{"deal": k, "plays": v[0], "asked": v[1]} for k, v in sorted(by_deal.items())],
        "transfers": transfers,
        "card_accuracy": (cards_right / cards_total) if cards_total else None,
        "exact_read_rate": (read_right / len(plays)) if plays else None,
        "mistakes": dict(mistakes),
        "flags": dict(raised),
        "expected_flags": dict(expected),
        "flag_match": not unmatched["missed"] and not unmatched["unexpected"],
        "unmatched": unmatched,
    }


def _transfer_reads(truth: TruthLog, by_seq: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The tribute and return cards: a lone card the camera reads (``read``), one it read wrong
    without doubt (``wrong_certain``: a wrong tribute card raises a wrong flag later, so it must be
    counted with the plays' silent errors), and those the referee entered (a doubted card is a call)."""
    read = wrong_n = entered = 0
    wrong: list[str] = []
    for t in truth.of_kind("tribute") + truth.of_kind("return"):
        ev = by_seq.get(t.get("seq")) if t.get("seq") is not None else None
        if ev is None or ev["type"] not in ("tribute_given", "return_given"):
            continue
        if ev.get("source") != "camera":
            entered += 1
            continue
        read += 1
        seen = (ev.get("data") or {}).get("card")
        if [seen] != list(t["cards"]):
            wrong_n += 1
            wrong.append(f"#{ev['seq']} {t.get('what')} {t.get('seat')} deal {t.get('deal')}: {t['cards'][0]} read as {seen}")
    return {"read": read, "wrong_certain": wrong_n, "wrong": wrong, "entered": entered}


def match_flags(mistakes: list[dict[str, Any]], flags: list[dict[str, Any]],
                events: list[dict[str, Any]] | None = None,
                entries: list[dict[str, Any]] | None = None) -> dict[str, list[str]]:
    """Pair each injected mistake with a flag of its rule for the same seat in the same deal.

    ``missed``: mistakes that raised no such flag; ``unexpected``: flags (not withdrawn, not
    neutral) that no mistake explains, each described with its evidence so the summary can say
    why the scorecard is "no" (e.g. a ``time_over`` whose play the camera read after the deadline
    on a machine too slow for the chosen speed); a missed mistake says, where ``entries`` (the
    bots' truth) has the action it was made with, how that action reached the engine (read by
    the camera, asked and answered, or entered by the referee), so a "no" names its cause."""
    pool = [f for f in flags if f.get("status") != "withdrawn" and f["rule"] not in NEUTRAL_FLAGS]
    used: set[str] = set()
    missed: list[str] = []
    for m in mistakes:
        rule = MISTAKE_FLAGS[m["mistake"]]
        hit = next(
            (f for f in pool if f["id"] not in used and f["rule"] == rule and f.get("seat") == m.get("seat")
             and f.get("deal") == m.get("deal")),
            None,
        )
        if hit is None:
            missed.append(f"{m['mistake']} {m.get('seat')} deal {m.get('deal')}: no {rule} flag"
                          + _how_it_came(m, entries or [], events or []))
        else:
            used.add(hit["id"])
    unexpected = [_describe(f, events or []) for f in pool if f["id"] not in used]
    return {"missed": missed, "unexpected": unexpected}


_ACTIONS = frozenset({"cards_played", "passed", "tribute_given", "return_given"})


def _how_it_came(m: dict[str, Any], entries: list[dict[str, Any]], events: list[dict[str, Any]]) -> str:
    """How the action a mistake was made with reached the engine (`` (…)``, or "" unknown)."""
    act = next((e for e in entries if e.get("n", -1) > m.get("n", -1) and e.get("seat") == m.get("seat")
                and e.get("what") in ("play", "pass")), None)
    if act is None or act.get("seq") is None:
        return " (its action never reached the engine)" if act is not None else ""
    ev = next((e for e in events if e.get("seq") == act["seq"]), None)
    if ev is None:
        return ""
    how = f"{ev['type']} #{ev['seq']} ({ev.get('source')}"
    if (ev.get("data") or {}).get("uncertain"):
        answer = next((e for e in events if e.get("type") in ("play_confirmed", "play_corrected")
                       and (e.get("data") or {}).get("ref") == ev["seq"]), None)
        how += f", asked; {answer['type'] if answer else 'not answered'}"
    return f" (its {how}))"


def _describe(f: dict[str, Any], events: list[dict[str, Any]]) -> str:
    """One line for a flag no mistake explains; for a ``time_over``, when the seat's own action
    then came (from the log): after the deadline means the table really was late although no slow
    turn was injected (the bots and the camera lagging behind the table clock at this speed)."""
    ev = f.get("evidence") or {}
    extra = ""
    if f["rule"] == "time_over":
        extra = f" ({ev.get('phase')}, {int(ev.get('overtime_ms') or 0) / 1000:.1f} s over"
        deadline = ev.get("deadline_ms")
        act = next(
            (e for e in events if e.get("seq", 0) > f.get("seq", 0) and e.get("type") in _ACTIONS
             and (e.get("data") or {}).get("seat") == f.get("seat")),
            None,
        )
        if act is not None and deadline is not None:
            late = (int(act["t_ms"]) - int(deadline)) / 1000
            extra += f"; its {act['type']} ({act.get('source')}) came {late:.1f} s after the deadline"
        extra += ")"
    return f"{f['id']} {f['rule']} {f.get('seat')} deal {f.get('deal')}{extra}"


def _counts(zh: str, en: str, counts: dict[str, int], rule_of: dict[str, str] | None = None) -> str:
    """``counts`` (a mistake or flag rule -> how many) in two whole halves, each rule in its words
    ("引擎标记：越序出牌 2、超时 1 / flags raised: out_of_turn 2, time_over 1"); it printed the dict."""
    def zh_name(key: str) -> str:
        rule = (rule_of or {}).get(key, key)
        return halves(ARTICLES[rule])[0] if rule in ARTICLES else key

    items = sorted(counts.items())
    return (f"  {zh}：{'、'.join(f'{zh_name(k)} {n}' for k, n in items) or '无'} / "
            f"{en}: {', '.join(f'{k} {n}' for k, n in items) or 'none'}")


def format_summary(s: dict[str, Any]) -> str:
    """The headless demo's closing report, Chinese then English."""
    acc = s.get("card_accuracy")
    rate = s.get("exact_read_rate")
    lines = [
        "演示结束 / demo finished",
        f"  牌局 / deals: {s['deals']}",
        f"  出牌 / plays: {s['plays']}  (摄像头直接读对 / read right by the camera: {s['read_right']}, "
        f"询问裁判 / asked the referee: {s['asked']}, 无声读错 / wrong without doubt: {s['wrong_certain']}, "
        f"未读到 / not seen: {s['missing']})",
        f"  识别准确率（按张）{acc:.2%} / recognition accuracy: per card {acc:.2%}" if acc is not None
        else "  识别准确率 / recognition accuracy: -",
        f"  整手直接读对率 / exact plays read without asking: {rate:.2%}" if rate is not None else "",
        f"  无声读错的出牌 / plays read wrong without doubt: {s['wrong_certain_plays'][:8]}" if s.get("wrong_certain_plays") else "",
        (f"  进贡/还贡牌 / tribute and return cards: 摄像头读 / read by the camera {tr['read']}, 无声读错 / wrong "
         f"without doubt {tr['wrong_certain']}, 裁判录入 / entered by the referee {tr['entered']}"
         + (f" {tr['wrong'][:4]}" if tr["wrong"] else "")) if (tr := s.get("transfers")) else "",
        "  每副询问率 / asked per deal: " + (", ".join(
            f"{d['deal']}: {d['asked'] / d['plays']:.0%} ({d['asked']}/{d['plays']})" for d in s["by_deal"] if d["plays"])
            or "-") if s.get("by_deal") is not None else "",
        _counts("注入失误", "mistakes injected", s["mistakes"], MISTAKE_FLAGS),
        _counts("引擎标记", "flags raised", s["flags"]),
        f"  失误与标记相符 / flags match mistakes: {'是 / yes' if s['flag_match'] else '否 / no'}",
    ]
    un = s.get("unmatched") or {}
    if un.get("missed"):
        lines.append(f"  未标记的失误 / mistakes without their flag: {un['missed'][:8]}")
    if un.get("unexpected"):
        lines.append(f"  无失误对应的标记 / flags no mistake explains ({len(un['unexpected'])}): {un['unexpected'][:8]}")
        if any(" time_over " in u for u in un["unexpected"]):
            lines.append("    多出的超时：演示时钟会等待机器人（本机的延迟不算玩家的时间），所以多出的超时来自时钟没有等待的动作："
                         "摄像头漏看后由裁判补录、面板上的人工操作，或重启时已过的时间（见上面每个标记的“动作晚到”秒数）"
                         " / extra time-over flags: the demo's clock waits for its bots (the machine's lag is no "
                         "player's time), so an extra one comes from an action the clock did not wait for: one the "
                         "camera missed and the referee entered, a person's action at the panel, or time that passed "
                         "while the demo was down (each flag above says how late its action came)")
    if s.get("clock_holds"):
        lines.append(f"  时钟等待本机：实际 {s.get('clock_held_s', 0):g} 秒，共 {s['clock_holds']} 个动作"
                     f"（×{s.get('speed', 1):g}：玩家的时间不含本机延迟）"
                     f" / the clock waited for this machine: {s.get('clock_held_s', 0):g} s real over "
                     f"{s['clock_holds']} actions (×{s.get('speed', 1):g}: the players' time "
                     "excludes the machine's lag)")
    if s.get("referee_entered"):
        lines.append(f"  裁判手工录入 / entered by the referee: {s['referee_entered']}")
    if s.get("errors"):
        lines.append(f"  问题 / problems: {s['errors'][:5]}")
    return "\n".join(x for x in lines if x)
