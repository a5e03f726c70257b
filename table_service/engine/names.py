"""What may be written as a name, a reason or an article: one rule for the engine's round set-up and
penalties and the hub's EVENT.toml and forms.

Why a module of its own: the rule is read by the engine (round set-up, penalties, tribute
corrections) and by the hub (its config and core), and it is about Unicode text, not about the
events' envelope and schemas (:mod:`.events`).
"""

from __future__ import annotations

import unicodedata


def says_something(text: object) -> bool:
    """Whether ``text`` holds a character one can see: a reason, an article or a name of nothing but
    spaces, zero-width spaces (U+200B), joiners or marks of direction says nothing on the score
    sheet, though ``str.strip`` keeps a zero-width space. Rounds from engine generation 6."""
    return isinstance(text, str) and any(unicodedata.category(c) not in _INVISIBLE for c in text)


def is_name(text: object) -> bool:
    """Whether ``text`` may be a team's, a player's or an event's name: something one can see, and no
    character that is not text (a control, a format character such as a zero-width space or a mark
    of direction, a line or paragraph break, half a surrogate pair). Spaces of any script are text:
    ``str.isprintable`` refused the full-width space a Chinese input method types ("江苏　一队") and
    the no-break space, so the hub took such a name and every table refused the round it sent. One
    rule for the engine's round set-up and the hub's EVENT.toml and forms."""
    return says_something(text) and all(unicodedata.category(c) not in _NOT_TEXT for c in str(text))


def is_team_name(text: object) -> bool:
    """Whether ``text`` may be a team's name in ``round_set_up``'s ``team_names``: the hub's own rule
    for a team's name (``event.config.team_name``: something visible, none of the characters
    ``views.wire.control_character`` refuses — controls and the marks that turn text's direction),
    laxer than :func:`is_name`: an emoji's zero-width joiner is part of a team's name the hub takes
    (the s36 review), and a table must start every round the hub sends. tests/test_one_source.py
    holds the two rules equal."""
    return says_something(text) and not any(
        unicodedata.category(c) == "Cc" or c in _DIRECTION_MARKS for c in str(text))


#: The characters that turn the direction of the text after them (embeddings, overrides, isolates).
_DIRECTION_MARKS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: Unicode categories that are not text in a name (spaces are: see :func:`is_name`).
_NOT_TEXT = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
#: Unicode categories that show nothing: spaces and separators, controls, format characters (zero-width
#: space, joiners, direction marks). Not unassigned or private-use ones: an emoji newer than Python's
#: tables is still something someone wrote.
_INVISIBLE = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf"})
