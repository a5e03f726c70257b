"""The words the hub's refusals are made of: a result and a time as the hall reads them.

Why apart: the refusals the checks (:mod:`table_service.event.core`) write name results, people
and times in Chinese then English, and the organiser pages show the same times (event/web.py's
``hhmm`` filter); one place for those words keeps the page and the refusal saying the same thing.
"""

from __future__ import annotations

import time
from typing import Any

from table_service.event.state import TableResult


def score_words(line: dict[str, Any], names: dict[str, str] | None = None) -> tuple[str, str]:
    """A result as people read it, ``(Chinese, English)``: ``常州队 3:1 南京队`` (``names``: the teams'
    names by id; an id without one stands as it is) and any forfeit or fixed score."""
    ns, ew = ((names or {}).get(line[k], line[k]) for k in ("ns", "ew"))
    base = f"{ns} {line.get('ns_levels', 0)}:{line.get('ew_levels', 0)} {ew}"
    zh, en = base, base
    if line.get("forfeit") == "both":
        zh, en = f"{zh}（双方弃权）", f"{en} (both sides forfeit)"
    elif line.get("forfeit"):
        side_zh, side_en = ("南北", "NS") if line["forfeit"] == "ns" else ("东西", "EW")
        zh, en = f"{zh}（{side_zh}弃权）", f"{en} ({side_en} forfeits)"
    if line.get("ns_score") is not None:
        zh += f"（判负定分 {line['ns_score']}:{line['ew_score']}）"
        en += f" (penalty score {line['ns_score']}:{line['ew_score']})"
    return zh, en


def hhmm(ms: int | None) -> str:
    """A hub time (epoch ms) as the hall's clock shows it, ``HH:MM:SS``; empty for none. One form
    for the refusal messages here and the organiser pages (event/web.py's ``hhmm`` filter)."""
    return time.strftime("%H:%M:%S", time.localtime(ms / 1000)) if ms else ""


def who_words(by: str | None) -> tuple[str, str]:
    """Who entered a result, ``(Chinese, English)``: an account's name as it is, a table's own result
    (logged as ``table:16``) as ``16 号桌`` / ``table 16``, never the log's internal form."""
    if not by:
        return "?", "?"
    if by.startswith("table:"):
        table = by[len("table:"):]
        return f"{table} 号桌", f"table {table}"
    return by, by


def who_text(by: str | None) -> str:
    """:func:`who_words` as one text, "中文 / English" (the name once where both halves are the same)."""
    zh, en = who_words(by)
    return zh if zh == en else f"{zh} / {en}"


def changed_since_words(rnd: int, table: str, cur: TableResult, want: int, basis: int | None,
                        names: dict[str, str] | None = None) -> str:
    """Why a correction made against the result with seq ``want`` is refused: what the table's
    result is now, who set it and when (Chinese first, then English; teams by ``names``)."""
    last = cur.history[-1]
    now_zh, now_en = score_words(last["result"], names)
    (who_zh, who), when = who_words(last["by"]), hhmm(last["t_ms"])
    why_zh = f"（原因：{last['reason']}）" if last.get("reason") else ""
    why_en = f" (reason: {last['reason']})" if last.get("reason") else ""
    seen = next((h for h in cur.history if h["seq"] == want), None)
    if seen is None:
        return (f"未纠正：basis {basis} 不是第 {rnd} 轮 {table} 号桌的成绩记录；现在的成绩是 {now_zh}（{who_zh} {when}）。"
                f"请刷新页面再纠正 / not corrected: basis {basis} is not a result of table {table}, round {rnd}; "
                f"its result now is {now_en} ({who}, {when}). Reload the page and correct again")
    n = sum(1 for h in cur.history if h["seq"] > want)
    times_zh = f"，此后共纠正 {n} 次" if n > 1 else ""
    times_en = f" ({n} corrections since)" if n > 1 else ""
    seen_zh, seen_en = score_words(seen["result"], names)
    if basis is None:
        return (f"未纠正：请求没有注明所纠正的成绩（basis），而第 {rnd} 轮 {table} 号桌的成绩已被 {who_zh} 于 {when} "
                f"纠正为 {now_zh}{why_zh}{times_zh}。请刷新页面，看清现在的成绩后再纠正 / not corrected: the request "
                f"does not say which result it corrects (basis), and table {table}, round {rnd} has been corrected by "
                f"{who} at {when} to {now_en}{why_en}{times_en}. Reload the page, check the result now in force, "
                "then correct it")
    return (f"未纠正：你打开页面后，第 {rnd} 轮 {table} 号桌的成绩已被 {who_zh} 于 {when} 纠正为 {now_zh}{why_zh}{times_zh}；"
            f"你看到的是 {seen_zh}。请刷新页面，看清现在的成绩后再决定 / not corrected: since you opened the page, "
            f"table {table}, round {rnd} has been corrected by {who} at {when} to {now_en}{why_en}{times_en}; "
            f"you saw {seen_en}. Reload the page, check the result now in force, then decide")
