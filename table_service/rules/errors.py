"""Errors of the rules engine.

All subclass ``ValueError`` so that callers who only care that input was bad can catch one
builtin, while the engine can tell a typo (``InvalidCardError``) from a play the rules forbid.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every error raised by ``table_service.rules``."""


class InvalidCardError(RulesError):
    """A card token that is not in the notation (``"7x"``, ``"11h"``)."""


class InvalidPlayError(RulesError):
    """Cards that form no pattern at all."""


class IllegalPlayError(RulesError):
    """A pattern that may not be played here (does not beat the trick, wrong tribute...)."""


class AmbiguousPlayError(RulesError):
    """Cards with several readings where the caller needed exactly one."""


class ImpossibleCardsError(RulesError):
    """Cards two decks cannot give: a face more than twice, or a hand of more than 27 cards."""
