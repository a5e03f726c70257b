"""A 413 names the limit that applied to that request (audit 26): the hub's deck upload has its own
(``DECK_UPLOAD_BYTES``, about 4 MiB), yet a too-large upload was told "at most 64 KiB", the app's
limit, and the organiser was sent to shrink a deck that already fit."""

from __future__ import annotations

import io
from typing import Any

import pytest

from table_service.event.web import DECK_UPLOAD_BYTES, create_hub_app
from table_service.web.app import create_app

JSON = {"Accept": "application/json"}


@pytest.fixture
def hub_app(tmp_path) -> Any:
    app = create_hub_app(None, users_db=str(tmp_path / "u.sqlite3"), secret_key="t")
    app.config["TESTING"] = True
    return app


@pytest.mark.parametrize("accept", ["application/json", "text/html"])
def test_a_deck_upload_over_its_limit_names_that_limit(hub_app, accept):
    kib = DECK_UPLOAD_BYTES // 1024
    assert kib > 64
    body = b"PK\x03\x04" + b"\0" * (DECK_UPLOAD_BYTES + 1024)
    r = hub_app.test_client().post("/hub/action/deck", data={"deck": (io.BytesIO(body), "deck.npz")},
                                   content_type="multipart/form-data", headers={"Accept": accept})
    assert r.status_code == 413
    text = r.get_json()["error"] if accept == "application/json" else r.get_data(as_text=True)
    assert f"最多 {kib} KiB" in text and f"at most {kib} KiB" in text
    assert "64 KiB" not in text


def test_other_routes_still_name_the_apps_limit(hub_app, tmp_path):
    r = hub_app.test_client().post("/hub/action/edit_team", data={"name": "x" * 70_000}, headers=JSON)
    assert r.status_code == 413 and r.get_json()["error"] == (
        "请求内容过大（最多 64 KiB） / request body too large (at most 64 KiB)")
    panel = create_app({"TESTING": True, "USERS_DB": str(tmp_path / "p.db"), "MAX_CONTENT_LENGTH": 8192})
    r = panel.test_client().post("/auth/login", data={"password": "x" * 10_000}, headers=JSON)
    assert r.status_code == 413 and "at most 8 KiB" in r.get_json()["error"]


def test_a_413_raised_without_a_limit_names_no_number(tmp_path):
    from flask import abort

    app = create_app({"TESTING": True, "USERS_DB": str(tmp_path / "p.db")})
    app.config["MAX_CONTENT_LENGTH"] = None  # no limit anywhere: a number would be made up

    @app.get("/too-large")
    def _too_large() -> Any:
        abort(413)

    r = app.test_client().get("/too-large", headers=JSON)
    assert r.status_code == 413 and r.get_json()["error"] == "请求内容过大 / request body too large"
