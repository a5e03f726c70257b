"""One rule for a table id: ``config check`` accepts in ``table.toml`` exactly the ids that ``run``
then serves (``attach_table``) and publishes to the hub (``views.wire.SEGMENT_RE``). Before,
``table_id = "T.1"`` passed ``config check`` and ``run`` failed in ``attach_table`` (no dot there),
while the hub protocol allowed ids of up to 64 characters that ``config check`` refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_service.cli import main
from table_service.table.runner import TableRunner
from table_service.views.wire import SEGMENT_RE
from table_service.web.app import create_app
from table_service.web.tables import attach_table, detach_table

TOML = ('table_id = "{table}"\ndata_dir = "data"\n[seats]\nE = "e"\nS = "s"\nW = "w"\nN = "n"\n'
        '[devices]\ndefault = "sim"\n[camera]\nsource = "none"\n')

IDS = {
    "T7": True, "T.1": True, "ev-2026_final.3": True, "x" * 64: True, "-1": True, "...": True,
    "x" * 65: False, "T 7": False, "a/b": False, "T#1": False, "T+1": False, "桌1": False, ".": False, "..": False,
}


@pytest.mark.parametrize("table_id", sorted(IDS))
def test_config_check_attach_table_and_the_hub_agree_on_a_table_id(tmp_path: Path, table_id: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    path.write_text(TOML.format(table=table_id), encoding="utf-8")
    checked = main(["config", "check", "--offline", str(path)]) == 0
    err = capsys.readouterr().err
    assert checked is IDS[table_id], err
    assert checked or "table_id" in err

    app = create_app({"TESTING": True, "USERS_DB": str(tmp_path / "users.sqlite3"), "SECRET_KEY": "test"})
    with TableRunner(tmp_path / "t.sqlite3") as runner:
        try:
            attach_table(app, table_id, runner)
            attached = True
        except ValueError as e:
            assert "invalid table id" in str(e)
            attached = False
        finally:
            detach_table(app, table_id)
    assert attached is checked
    assert bool(SEGMENT_RE.match(table_id)) is checked
