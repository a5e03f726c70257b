"""examples/event.toml, the organiser's starting point, is an event the hub accepts."""

from __future__ import annotations


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
