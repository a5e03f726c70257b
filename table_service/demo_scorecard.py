"""The demo's scorecard: the engine's record compared with what the bots really did.

:func:`compare_with_log` counts camera reads, referee questions and flags against the bots'
:class:`~table_service.bots.TruthLog`; :func:`format_summary` prints it (the headless demo's
closing report, and the one printed when the demo is stopped).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from table_service.bots import TruthLog

#: Which flag rule each injected mistake should raise.
MISTAKE_FLAGS: dict[str, str] = {
    "out_of_turn": "out_of_turn",
    "missed_report": "report_missing",
    "slow": "time_over",
    "non_beating": "does_not_beat",
}
#: Flags that are not violations by a player (a referee call, the engine asking the chief).
NEUTRAL_FLAGS: frozenset[str] = frozenset({"referee_call", "penalty_escalation"})


def compare_with_log(truth: TruthLog, events: list[dict[str, Any]], flags: list[dict[str, Any]]) -> dict[str, Any]:
    """The demo's scorecard: how the engine's record (camera reads, questions, flags) compares
    with what the bots really did.

    * ``plays``: bot plays; ``read_right``: plays whose camera read was right as read (certain and
      equal to the truth); ``asked``: plays that became a referee question; ``wrong_certain``:
      plays read wrongly *without* doubt (silent errors: should be 0); ``missing``: plays the
      engine has no camera event for.
    * ``flags``: flags raised per rule; ``mistakes``: mistakes injected per kind; ``flag_match``:
      whether every injected mistake raised its flag and no other (non-neutral) flag was raised.
    """
    by_seq = {e["seq"]: e for e in events}
    plays = [p for p in truth.plays if p.get("seq") is not None]
    read_right = asked = wrong_certain = 0
    cards_total = cards_right = 0
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
        if d.get("uncertain"):
            asked += 1
        elif seen == p["cards"]:
            read_right += 1
        else:
            wrong_certain += 1
    missing = len(truth.plays) - len(plays)
    mistakes = Counter(m["mistake"] for m in truth.mistakes)
    raised = Counter(f["rule"] for f in flags if f.get("status") != "withdrawn")
    expected = Counter({MISTAKE_FLAGS[k]: n for k, n in mistakes.items()})
    relevant = Counter({k: n for k, n in raised.items() if k not in NEUTRAL_FLAGS})
    return {
        "plays": len(truth.plays),
        "read_right": read_right,
        "asked": asked,
        "wrong_certain": wrong_certain,
        "missing": missing,
        "card_accuracy": (cards_right / cards_total) if cards_total else None,
        "exact_read_rate": (read_right / len(plays)) if plays else None,
        "mistakes": dict(mistakes),
        "flags": dict(raised),
        "expected_flags": dict(expected),
        "flag_match": relevant == expected,
    }


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
        f"  识别准确率 / recognition accuracy: per card {acc:.2%}" if acc is not None else "  识别准确率 / recognition accuracy: -",
        f"  整手直接读对率 / exact plays read without asking: {rate:.2%}" if rate is not None else "",
        f"  注入失误 / mistakes injected: {s['mistakes']}",
        f"  标记违规 / flags raised: {s['flags']}",
        f"  失误与标记相符 / flags match mistakes: {'是 / yes' if s['flag_match'] else '否 / no'}",
    ]
    if s.get("referee_entered"):
        lines.append(f"  裁判手工录入 / entered by the referee: {s['referee_entered']}")
    if s.get("errors"):
        lines.append(f"  问题 / problems: {s['errors'][:5]}")
    return "\n".join(x for x in lines if x)
