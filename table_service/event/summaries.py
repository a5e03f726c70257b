"""Which of a table's summaries the hub shows: the rule of order between two of them.

Why apart: a summary is counts the overview shows, sent whenever they change and redelivered by the
broker at will, so the hub must pick, of two, the newer. Its seq (``last_seq``) orders them only
within one event log, and a replaced Pi starts a new log at 1; the rule that says so is one
function, read by :meth:`~.table_messages.TableMessages.handle_batch` for every summary.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: A table's summary the hub received this long after the one it shows wins whatever its round and seq.
SUMMARY_STALE_MS = 60_000


def takes_summary(shown: Mapping[str, Any], shown_rx_ms: int, logs_left: set[str], new: Mapping[str, Any],
                  now_ms: int) -> bool:
    """Whether the summary ``new``, received at ``now_ms``, replaces ``shown`` (received at
    ``shown_rx_ms``; ``logs_left``: the logs the table's summaries came from before it).

    Newer by (round, seq) wins, and a summary the hub receives a minute after the one it shows wins
    anyway (by the hub's clock, not the table's: a summary claiming the far future kept every later
    one out). Seqs are numbered within one log, and a replaced Pi starts a new one at 1: a summary
    naming another log than the one shown wins at once (the hub kept the dead Pi's highest seq and
    ignored the new Pi's summaries for a minute, the overview showing the old Pi's last deal); one of
    a log the table has moved on from (a late delivery) only by the minute. A summary without a log
    (a table of an older release) is ordered by round and seq, as before."""
    stale = now_ms > shown_rx_ms + SUMMARY_STALE_MS
    was, log = shown.get("log"), new.get("log")
    if log and log in logs_left:
        return stale

    def order(d: Mapping[str, Any]) -> tuple[int, int]:
        return (d.get("round") or 0, d.get("last_seq") or 0)

    return not shown or stale or bool(was and log and was != log) or order(new) >= order(shown)
