"""Options of the simulated table (:mod:`table_service.demo.table_demo`), shared by the bot driver and the demo.

Kept apart so :mod:`table_service.demo.bot_table` and :mod:`table_service.demo.table_demo` can both use
them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_service.demo.bots import MISTAKE_KINDS

BOT_NAMES: dict[str, str] = {"E": "东 · 机器人", "S": "南 · 机器人", "W": "西 · 机器人", "N": "北 · 机器人"}


@dataclass
class DemoOptions:
    """Options of a simulated table (the demo's command line)."""

    seed: int = 0
    speed: float = 1.0
    deals: int | None = None
    """Stop after this many deals; ``None``: play on (new rounds) until stopped."""
    mistakes: float = 0.0
    mistake_kinds: tuple[str, ...] = MISTAKE_KINDS
    think_s: tuple[float, float] = (1.0, 3.0)
    """Table seconds a bot thinks before acting (uniform in this range)."""
    referee_s: tuple[float, float] = (1.0, 2.0)
    """Table seconds the demo referee takes to answer a question or rule on a flag."""
    referee_pause_s: float = 0.0
    """Real seconds the demo referee waits on top of that before it answers a question or rules on
    a flag, so a person at the panel can act first (the demo's command line sets several)."""
    referee: str = "auto"
    """``auto``: the demo referee answers questions and rules on flags; ``human``: it leaves them
    to the person at the panel (it still sets up rounds, deals and enters what the camera missed)."""
    between_deals_s: float = 4.0
    min_gap_real_s: float = 0.05
    """A floor under every pause in real seconds, so a very high speed keeps actions ordered."""
    stuck_real_s: float = 12.0
    """A physical action not seen by the engine within this many real seconds is entered by the
    referee at the panel (and counted as a miss of the camera)."""
    ruleset: str = "jiangsu"



REFEREE_MODES: tuple[str, ...] = ("auto", "human")
