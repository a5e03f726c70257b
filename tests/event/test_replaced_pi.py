"""A table's Pi replaced mid-round, through the real Mosquitto: the replacement's new event log numbers
its seqs from 1 again, and the hub (which keeps a table's highest ``last_seq``) ignored its summaries
for a minute, the overview showing the dead Pi's last deal. Each summary now names its log
(``log``, docs/hub-protocol.md): another log's summary is taken at once; a late one of the log the
table moved on from is not; a table of an older release (no log) is ordered by seq as before."""

from __future__ import annotations

import copy
import json
import logging
import tomllib
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from event_helpers import wait_for

from table_service.demo.event_demo import BotEventTable
from table_service.engine.self_play import SelfPlayTable
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.spare import provision_folder
from table_service.views.assignment import set_up_data

from .test_hub_web import app_with_users, login

#: The hub's clock stands still in these tests: a summary is never taken because a minute passed.
FIXED_MS = 1_795_000_000_000


def _cfg(broker: Any) -> dict[str, Any]:
    return validate({"event": {"id": "ev", "name": "换机测试", "rounds": 2, "seed": 4,
                               "format": {"kind": "deals", "deals": 2}},
                     "mqtt": broker.hub_mqtt("ev"), "teams": [{"id": f"T{i}"} for i in range(1, 3)]})


def _pi(tmp: Path, broker: Any, folder: str) -> BotEventTable:
    """Table 1's Pi, its event log in ``folder`` (a replacement Pi: a new folder, a new log)."""
    return BotEventTable("1", tmp / folder, port=broker.port, event_id="ev", seed=1, auto=False,
                         login=broker.login("ev", "1"))


def _play_one_deal(pi: BotEventTable) -> None:
    """Set the assigned round up and let the bots play its first deal (the round goes on)."""
    setup = set_up_data(pi.bridge.assignment)
    pi._submit("round_set_up", setup)
    bots = SelfPlayTable(7, step_ms=(5, 20))
    bots.state = copy.deepcopy(pi.runner.raw_state())
    for ev in bots.deal():
        pi._submit(ev["type"], ev["data"], source=ev["source"], role=ev.get("role"))


class _Raw:
    """A client with table 1's credential sending what a table would (an older release, a late copy)."""

    def __init__(self, broker: Any) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="raw-replaced-pi")
        self.client.username_pw_set(*broker.login("ev", "1"))
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()

    def summary(self, obj: dict[str, Any]) -> None:
        """Retained, as a table sends it: a hub whose subscription is not yet in place when it is
        sent (``wait_connected`` says connected, not subscribed) still gets it."""
        self.client.publish("guandan/ev/1/summary", json.dumps({"table": "1", **obj}), qos=1,
                            retain=True).wait_for_publish(5)

    def status(self, status: str) -> None:
        """A marker: handled after what this client sent before it (one connection, in order)."""
        self.client.publish("guandan/ev/1/status", json.dumps({"status": status}), qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def test_a_replacement_pis_first_summary_is_shown_at_once(tmp_path: Path, broker: Any) -> None:
    hub = HubService(_cfg(broker), tmp_path / "hub", clock_ms=lambda: FIXED_MS).start()
    old = _pi(tmp_path, broker, "pi-old")
    new = None
    try:
        assert hub.wait_connected(10)
        hub.draw_next("o", "chief")
        hub.publish_draw(1, "o", "chief")
        old.start()
        wait_for(lambda: old.bridge.assignment, what="the old Pi's assignment")
        _play_one_deal(old)
        wait_for(lambda: ((getattr(hub.live.get("1"), "summary", {}) or {}).get("last_seq") or 0) > 10,
                 what="the old Pi's summary, a deal played")
        shown = hub.live["1"].summary
        old_seq = shown["last_seq"]
        assert shown["log"] == old.runner.log_id and shown["round"] == 1
        old.stop()  # the Pi fails: a new one, with a new log, takes its place
        new = _pi(tmp_path, broker, "pi-new").start()
        assert new.runner.log_id != old.runner.log_id
        wait_for(lambda: new.bridge.assignment, what="the new Pi's assignment")
        new._submit("round_set_up", set_up_data(new.bridge.assignment))
        assert new.runner.state()["last_seq"] < old_seq  # its seqs are lower than the dead Pi's
        # Shown at once (the hub's clock stands still: not because a minute passed)
        wait_for(lambda: hub.live["1"].summary.get("log") == new.runner.log_id
                 and hub.live["1"].summary.get("round") == 1, what="the new Pi's summary of round 1")
        assert hub.live["1"].summary["last_seq"] < old_seq

        new.stop()  # the broker's client id is the credential's user: a second client with it ends the first
        wait_for(lambda: hub.live["1"].online is False, what="the new Pi gone")
        raw = _Raw(broker)
        try:
            # A late copy of the old log (a higher seq) does not take the table back to the dead Pi …
            raw.summary({"round": 1, "deal": 2, "last_seq": old_seq + 50, "log": old.runner.log_id})
            raw.status("online")  # … handled after it (one connection, in order)
            wait_for(lambda: hub.live["1"].online, what="the marker")
            assert hub.live["1"].summary["log"] == new.runner.log_id
        finally:
            raw.close()
    finally:
        old.stop()
        if new is not None:
            new.stop()
        hub.stop()


def test_a_table_of_an_older_release_is_ordered_by_seq_as_before(tmp_path: Path, broker: Any) -> None:
    """No ``log`` in its summaries: a lower seq of the same round is an older message, ignored."""
    hub = HubService(_cfg(broker), tmp_path / "hub", clock_ms=lambda: FIXED_MS).start()
    raw = _Raw(broker)
    try:
        assert hub.wait_connected(10)
        raw.summary({"round": 1, "deal": 2, "last_seq": 80})
        wait_for(lambda: (getattr(hub.live.get("1"), "summary", {}) or {}).get("deal") == 2, what="the summary")
        raw.summary({"round": 1, "deal": 1, "last_seq": 3})
        raw.status("offline")
        wait_for(lambda: hub.live["1"].online is False, what="the marker")
        assert hub.live["1"].summary["last_seq"] == 80 and hub.live["1"].summary["log"] is None
    finally:
        raw.close()
        hub.stop()


def test_the_chief_downloads_a_replacement_pis_credential_and_the_pi_connects_with_it(
        tmp_path: Path, broker: Any, caplog: pytest.LogCaptureFixture) -> None:
    hub = HubService(_cfg(broker), tmp_path / "hub").start()
    hub.provision_dir = broker.creds["ev"].folder  # what `event provision` wrote for this event
    pi = None
    try:
        assert hub.wait_connected(10)
        app = app_with_users(hub, tmp_path)
        nobody, referee, chief = app.test_client(), app.test_client(), app.test_client()
        login(referee, "rita")
        login(chief, "chen")
        assert nobody.get("/hub/table-mqtt.toml?table=1").status_code == 302  # to the login page
        assert referee.get("/hub/table-mqtt.toml?table=1").status_code == 403
        assert 'id="credential-form"' not in referee.get("/hub/admin").get_data(as_text=True)
        page = chief.get("/hub/admin").get_data(as_text=True)
        assert 'id="credential-form"' in page and '<option value="9">' in page
        assert "文件含该桌的 MQTT 密码" in page and "holds the table's MQTT password" in page

        with caplog.at_level(logging.WARNING, logger="table_service.event.web_spare"):
            r = chief.get("/hub/table-mqtt.toml?table=1")
        assert "table 1's MQTT credential downloaded by chen" in caplog.text  # who fetched which, said
        assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
        assert r.headers["Content-Disposition"] == 'attachment; filename="table-1-mqtt.toml"'
        text = r.get_data(as_text=True)
        assert "请保密" in text and "keep it secret" in text
        got = tomllib.loads(text)["mqtt"]
        cred = broker.creds["ev"].tables["1"]
        assert (got["username"], got["password"], got["event"]) == (cred.username, cred.password, "ev")
        assert chief.get("/hub/table-mqtt.toml?table=77").status_code == 404
        assert chief.get("/hub/ca.crt").status_code == 404  # provisioned without TLS: none

        # A replacement Pi set up with the download reaches the broker as table 1 and the hub sees it
        pi = BotEventTable("1", tmp_path / "pi", port=broker.port, event_id=got["event"], seed=1, auto=False,
                           login=(got["username"], got["password"])).start()
        wait_for(lambda: getattr(hub.live.get("1"), "online", None) is True, what="the replacement Pi online")
    finally:
        if pi is not None:
            pi.stop()
        hub.stop()


def test_the_provision_folder_is_where_the_hubs_credential_came_from_or_beside_event_toml(tmp_path: Path) -> None:
    """``guandan-table hub`` finds the tables' credentials: the folder of the hub.toml it took its own
    from, else ``mqtt-<event>`` beside EVENT.toml."""
    cfg = {"event": {"id": "ev"}, "mqtt": {"source": str(tmp_path / "elsewhere" / "hub.toml")}}
    assert provision_folder(cfg, tmp_path / "EVENT.toml") == tmp_path / "elsewhere"
    assert provision_folder({"event": {"id": "ev"}, "mqtt": {}}, tmp_path / "EVENT.toml") == (tmp_path / "mqtt-ev").resolve()
    assert provision_folder({"event": {"id": "ev"}, "mqtt": {}}) is None
