"""Real browser (Playwright, Debian Chromium, the real cheroot server): the panel's 登记牌组 / Enrol
deck button over a rendered frame of a deck laid out in rows; a question answered from its
picture by a tap, then finish. Screenshots go to test-artifacts/web/."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import vision.cardnet.enrol as enrol_mod
from vision.geometry import default_layout
from vision.watcher import TableWatcher

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"


class FakePipeline:
    """What the panel's enrolment uses of ``CameraPipeline``: the newest frame, the watcher, a file."""

    def __init__(self, frame: np.ndarray, out: Path) -> None:
        self.frame, self.watcher, self.enrollment_path = frame, TableWatcher(default_layout()), str(out)

    def latest_frame(self) -> np.ndarray:
        return self.frame


def test_enrol_deck_button(app, runner, serve_app, h, tmp_path, monkeypatch, open_page, laid_out_deck):
    monkeypatch.setattr(enrol_mod, "ENROL_ROWS", 24)
    monkeypatch.setattr(enrol_mod, "ENROL_STEPS", 500)
    monkeypatch.setattr("vision.cardnet.fancheck.FAN_CHECK_PLAYS", 6)
    runner.camera_pipeline = pipe = FakePipeline(laid_out_deck, tmp_path / "d.npz")
    # The service hangs the camera's health beside its pipeline (table/service.py): the panel shows
    # the camera's buttons only where the clock reading carries it.
    runner.camera_health = lambda: {"state": "reading", "lag_s": 0.1, "last_read_ms": None, "dropped": 0,
                                    "text": "摄像头读牌中 / camera reading"}
    srv = serve_app(app)
    page, errors = open_page(timeout_ms=60_000)
    page.goto(f"{srv.url}/auth/login")
    page.fill("#username", "chen")  # enrolling a deck is the chief referee's (web/enroll.py)
    page.fill("#password", h.PASSWORD)
    page.click("#login-submit")
    page.click("a.table-link")
    page.click("#enroll-open")
    page.wait_for_timeout(800)  # its first look finds no enrolment started: nothing to say, no "connection failed"
    assert "连接失败" not in page.inner_text("#enroll-status")
    page.click("#enroll-start")
    page.wait_for_selector(".enroll-question img")
    page.wait_for_function("document.querySelector('.enroll-question img')?.naturalWidth > 100")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "enroll-question.png"), full_page=True)
    from table_service.web import enroll as enroll_bp

    cards = enroll_bp._sessions["1"].cards
    while page.locator(".enroll-question").count():
        before = page.locator(".enroll-question").count()
        q = page.locator(".enroll-question").first
        x, y = cards[int(q.get_attribute("data-id"))].centre_mm
        truth = h.card_laid_at(x, y)
        likely = q.locator(f'button.enroll-likely:text-is("{truth}")')
        if likely.count():  # one tap on the reading offered
            likely.first.click()
        else:  # or typed
            q.locator("input").fill(truth)
            q.locator("button", has_text="确定").click()
        page.wait_for_function(f"document.querySelectorAll('.enroll-question').length === {before - 1}")
    page.click("#enroll-finish")
    # Used (登记完成), or refused by its self-check with why (失败：登记后读错…): both are shown, in the
    # panel's language.
    page.wait_for_function("(t => t.includes('登记完成') || t.includes('登记后读错'))"
                           "(document.getElementById('enroll-status').textContent)")
    page.screenshot(path=str(ARTIFACTS / "enroll-done.png"), full_page=True)
    done = "登记完成" in page.inner_text("#enroll-status")
    assert not done or "扇形检查" in page.inner_text("#enroll-status")  # what the deck will cost the referee
    assert (pipe.watcher.enrollment is not None) == done
    assert errors == [], errors
