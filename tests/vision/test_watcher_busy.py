"""``TableWatcher.zone_busy`` and ``last_frame_t``: what the table service asks the camera at a
countdown's deadline (is a play being put down right now, and how far has the camera got)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.settle import SettleConfig
from vision.synth import Hand, TableScene
from vision.watcher import PlayObservation, TableWatcher


def test_zone_is_busy_from_the_hand_reaching_in_until_the_play_is_read(renderer) -> None:
    w = TableWatcher(renderer.layout, settle=SettleConfig(settle_s=0.5))
    assert w.last_frame_t is None
    empty = renderer.render(TableScene({}), seed=1)
    cards = ["7s", "7h"]
    reaching = renderer.render(TableScene({}, [Hand("S", 0.6)]), seed=2)
    placing = renderer.render(TableScene({"S": cards}, [Hand("S", 0.4)]), seed=3)
    down = [renderer.render(TableScene({"S": cards}), seed=s) for s in (4, 5)]
    t = 0.0
    for _ in range(3):
        t += 0.1
        assert w.feed(empty, t) == []
    assert w.last_frame_t == pytest.approx(t)
    assert not any(w.zone_busy(s) for s in "ESWN")
    t += 0.1
    w.feed(reaching, t)
    assert w.zone_busy("S") and not w.zone_busy("N"), "the hand over the south zone"
    t += 0.1
    w.feed(placing, t)
    assert w.zone_busy("S")
    # Cards down, hand gone: still busy while the zone waits to settle (the read is to come).
    reads: list[PlayObservation] = []
    busy_until_read: list[bool] = []
    for i in range(12):
        t += 0.1
        obs = [o for o in w.feed(down[i % 2], t) if isinstance(o, PlayObservation)]
        if not reads:
            busy_until_read.append(w.zone_busy("S") or bool(obs))
        reads += obs
        assert w.last_frame_t == pytest.approx(t)
    assert len(reads) == 1 and reads[0].cards == cards
    assert all(busy_until_read), busy_until_read
    assert not w.zone_busy("S"), "settled and read: no longer busy"
    assert not w.zone_busy("X"), "an unknown seat is never busy"


def test_a_bad_frame_does_not_move_last_frame_t(renderer) -> None:
    w = TableWatcher(renderer.layout)
    frame = renderer.render(TableScene({}), seed=1)
    w.feed(frame, 1.0)
    with pytest.raises(ValueError):
        w.feed(np.zeros((10, 10), np.uint8), 2.0)
    assert w.last_frame_t == 1.0
