"""Errors of the referee engine and its event store.

Every engine error is a ``ValueError`` too, so the CLI (which prints ``ValueError`` as a clear
message) and callers that only care that input was bad can catch one builtin.
"""

from __future__ import annotations


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


def halves(message: str) -> tuple[str, str]:
    """A "中文 / English" message's two halves (the message twice where it has no separator).

    Why: a message that wraps another (a correction refused for the reason the re-fold gave) must put
    the inner message's halves each in its own language's half; the panel shows the half of the
    referee's language, split at the first " / "."""
    zh, sep, en = message.partition(" / ")
    return (zh, en) if sep else (message, message)
