"""A round of engine generation 8 folds exactly as it was played (generation 9 gated on ``round.engine``).

``data/logs_of_generation_8.json`` holds generation-8 logs of every scenario generation 9 rules on
differently (audit s37: a call answered or voided, a play out of turn, a play during a call, the screen
offline, the last card out of turn, a violation between deals, a late arrival of 0 minutes, report cards),
written and folded by 889793b, the last release before generation 9; this release must fold each to the
same state.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_service.engine.apply import fold
from table_service.engine.state import state_to_json

DATA = json.loads((Path(__file__).with_name("data") / "logs_of_generation_8.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(DATA["logs"]))
def test_a_generation_8_log_folds_as_the_release_that_wrote_it_folded_it(name: str) -> None:
    state = state_to_json(fold(DATA["logs"][name]))
    assert state["round"]["engine"] == 8
    assert {k: state.get(k) for k in DATA["keys"]} == DATA["states"][name]
