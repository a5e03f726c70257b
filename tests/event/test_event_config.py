"""event.toml: the example is an event the hub accepts, and what a file says is kept or refused in one line."""

from __future__ import annotations

from typing import Any

import pytest

from table_service.event.config import validate
from table_service.event.model import EventInputError


def event_cfg(**ev: Any) -> dict[str, Any]:
    return validate({"event": {"id": "t1", "name": "测试赛", "rounds": 3, "seed": 3, **ev},
                     "teams": [{"id": f"T{i}", "players": [f"p{i}a", f"p{i}b"]} for i in range(1, 9)]})


def test_the_example_event_toml_is_a_valid_event() -> None:
    """The file README and EVENT.toml's own docs point at (it did not exist)."""
    from pathlib import Path

    from table_service.event.config import load_event

    cfg = load_event(Path(__file__).resolve().parents[2] / "examples" / "event.toml")
    assert cfg["event"]["id"] == "js2026" and len(cfg["teams"]) == 12 and len(cfg["tables"]) == 6


def test_the_hub_takes_the_credential_provision_wrote_beside_event_toml(tmp_path) -> None:
    """The organiser pasted hub.toml's password into EVENT.toml by hand; now the hub finds it."""
    import shutil
    from pathlib import Path

    from table_service.event.config import load_event

    event = tmp_path / "event.toml"
    shutil.copy(Path(__file__).resolve().parents[2] / "examples" / "event.toml", event)
    assert load_event(event)["mqtt"]["username"] is None  # not provisioned yet
    (tmp_path / "mqtt-js2026").mkdir()
    (tmp_path / "mqtt-js2026" / "hub.toml").write_text(
        '[mqtt]\nhost = "10.0.0.1"\nport = 8883\nusername = "js2026-hub"\npassword = "s3cret"\nca_file = "ca.crt"\n')
    (tmp_path / "mqtt-js2026" / "ca.crt").write_text("x")
    m = load_event(event)["mqtt"]
    assert (m["username"], m["password"]) == ("js2026-hub", "s3cret")
    # Host, port and CA are hub.toml's together: EVENT.toml's plain port beside hub.toml's CA made the
    # hub try TLS on the plain listener, and never connect.
    assert m["host"] == "10.0.0.1" and m["port"] == 8883
    assert m["ca_file"] == str(tmp_path / "mqtt-js2026" / "ca.crt") and m["source"].endswith("hub.toml")
    event.write_text(event.read_text().replace('port = 1883', 'port = 1883\nusername = "other"\npassword = "p"'))
    assert load_event(event)["mqtt"]["username"] == "other"  # named in EVENT.toml: the file is not read


def test_config_errors_are_one_clear_line() -> None:
    with pytest.raises(EventInputError, match="did you mean 'rounds'"):
        validate({"event": {"id": "x", "roundz": 3, "rounds": 2}, "teams": []})
    # No [[teams]] (or one) is an event whose teams are imported at the hub: its draw asks for two.
    assert validate({"event": {"id": "x", "rounds": 2}})["teams"] == []
    with pytest.raises(EventInputError, match="teams must be"):
        validate({"event": {"id": "x", "rounds": 2}, "teams": {"id": "A"}})
    with pytest.raises(EventInputError, match="duplicate team"):
        validate({"event": {"id": "x", "rounds": 2}, "teams": [{"id": "A"}, {"id": "A"}]})
    with pytest.raises(EventInputError, match="invalid id"):
        validate({"event": {"id": "a/b", "rounds": 2}, "teams": [{"id": "A"}, {"id": "B"}]})


def test_config_keeps_what_event_toml_says() -> None:
    # Every value comes through as written (the event's name once came out as "hub": a loop over
    # the [mqtt]/[hub] sections reused its variable).
    cfg = validate({"event": {"id": "js", "name": "江苏公开赛 / Jiangsu Open", "rounds": 7, "draw": "swiss",
                              "format": {"kind": "deals", "deals": 6}, "match_points": "3-2-1-0", "seed": 9},
                    "mqtt": {"port": 1884, "keepalive": 30}, "hub": {"port": 8095},
                    "teams": [{"id": "A", "name": "甲队 / A", "players": ["a1", "a2"]}, {"id": "B", "players": ["b1", "b2"]}],
                    "tables": [{"id": "1", "panel": "http://10.0.0.1:8080/tables/1"}]})
    ev = cfg["event"]
    assert (ev["id"], ev["name"], ev["rounds"], ev["draw"], ev["seed"]) == ("js", "江苏公开赛 / Jiangsu Open", 7, "swiss", 9)
    assert ev["format"] == {"kind": "deals", "deals": 6} and ev["match_points"] == "3-2-1-0"
    assert cfg["mqtt"]["port"] == 1884 and cfg["mqtt"]["keepalive"] == 30 and cfg["hub"]["port"] == 8095
    assert [(t["id"], t["name"], t["players"]) for t in cfg["teams"]] == [("A", "甲队 / A", ["a1", "a2"]),
                                                                        ("B", "B", ["b1", "b2"])]
    assert cfg["tables"][0]["panel"] == "http://10.0.0.1:8080/tables/1"


def test_event_toml_names_with_control_characters_are_refused() -> None:
    """An event's, a team's or a player's name reaches every table's assignment and the printed draw."""
    with pytest.raises(EventInputError, match="control character"):
        event_cfg(name="赛\x00\n\x1b[31m")
    for team in ({"id": "T1", "name": "一队\x07", "players": ["a", "b"]}, {"id": "T1", "players": ["a\x00", "b"]}):
        with pytest.raises(EventInputError, match="control character"):
            validate({"event": {"id": "t1", "rounds": 1, "seed": 3},
                      "teams": [team, {"id": "T2", "players": ["c", "d"]}]})
