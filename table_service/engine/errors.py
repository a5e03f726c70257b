"""Errors of the referee engine and its event store.

Every engine error is a ``ValueError`` too, so the CLI (which prints ``ValueError`` as a clear
message) and callers that only care that input was bad can catch one builtin.
"""

from __future__ import annotations

import re


class EngineError(ValueError):
    """Base of every error raised by ``table_service.engine``."""


class EventRejected(EngineError):
    """An event that cannot be applied: malformed, out of place, or from the wrong role.

    The message is Chinese first, then English, because it is shown to referees as is. The
    runner stores the event as *rejected* with this message; the state does not change.
    """


class RoleRejected(EventRejected):
    """An event refused for the role that sent it (a referee's for the chief alone): the panel answers
    403, every other refusal 422 — told by the class, never guessed from the message's wording."""


#: The separator an older release wrote after a closing Chinese bracket or mark ("（确认即失去）/ a …",
#: no space before the slash): texts logged then (a camera note, a penalty's article) still split.
_OLD_SEPARATOR = re.compile(r"(?<=[\u3000-\u303f\uff00-\uffef])/ ")


def halves(message: str) -> tuple[str, str]:
    """A "中文 / English" message's two halves (the message twice where it has no separator).

    Why: a message that wraps another (a correction refused for the reason the re-fold gave) must put
    the inner message's halves each in its own language's half; the panel shows the half of the
    referee's language, split at the first " / " (or, in a text an older release logged, at the first
    "）/ ": :data:`_OLD_SEPARATOR`)."""
    zh, sep, en = message.partition(" / ")
    if sep:
        return zh, en
    old = _OLD_SEPARATOR.search(message)
    return (message[:old.start()], message[old.end():]) if old else (message, message)
