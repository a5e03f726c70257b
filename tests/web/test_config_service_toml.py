"""The web settings from the table service's ``table.toml`` (docs/api.md "Settings"; the s37 docs
audit, findings 5 and 6): ``GUANDAN_WEB_CONFIG=table.toml`` and ``guandan-table user … --config
table.toml`` read its ``[web]`` as ``guandan-table run`` does, and the accounts go where the
service looks for them. Before, examples/table-sim.toml was refused (``unknown setting
'table_id'``), deploy/table.toml too (``unknown setting 'host' … [web]``), and ``user add``
without ``--db`` wrote ``./data/web-users.sqlite3`` of whatever folder it ran in."""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import pytest

from table_service.cli import main
from table_service.table.config import SERVICE_SCHEMA, load_service_config
from table_service.table.service import TableService
from table_service.web import config, users
from table_service.web.config import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_the_sim_example_gives_the_users_database_run_opens(tmp_path):
    """examples/table-sim.toml, copied: the accounts are in its data_dir, as the service keeps them."""
    toml = tmp_path / "table.toml"
    shutil.copy(ROOT / "examples" / "table-sim.toml", toml)
    got = config.build(config_file=str(toml), environ={})
    svc = load_service_config(toml)
    assert got["USERS_DB"] == str(svc.data_dir / "web-users.sqlite3")
    assert got["USERS_DB"] == str(tmp_path / "data" / "SIM1" / "web-users.sqlite3")
    # What the running service hands its panel: the same database, the same feed.
    served = config.build(TableService(svc)._web_settings(), environ={})
    assert served["USERS_DB"] == got["USERS_DB"]
    assert (served["FEED_DELAY_S"], served["FEED_DUPLICATE"]) == (got["FEED_DELAY_S"], got["FEED_DUPLICATE"])


def test_the_deploy_table_toml_is_read_for_its_web_section():
    """deploy/table.toml: [web] host and port are the service's own (ignored here), feed_delay_s taken."""
    toml = ROOT / "deploy" / "table.toml"
    got = config.build(config_file=str(toml), environ={})
    assert got["FEED_DELAY_S"] == 60.0
    data_dir = load_service_config(toml, check_devices=False, check_files=False).data_dir
    assert got["USERS_DB"] == str(data_dir / "web-users.sqlite3") == "/var/lib/guandan-table/web-users.sqlite3"


def test_every_key_of_the_service_s_web_section_and_no_other(tmp_path):
    toml = tmp_path / "table.toml"
    head = 'table_id = "T1"\n[seats]\nE = "a"\nS = "b"\nW = "c"\nN = "d"\n[camera]\nsource = "none"\n'
    toml.write_text(head + '[web]\nenabled = true\nhost = "0.0.0.0"\nport = 8081\nfeed_delay_s = 30\n'
                    'duplicate = true\nusers_db = "accounts/u.sqlite3"\nsecret_key = "0123456789abcdef-key"\n',
                    encoding="utf-8")
    load_service_config(toml)  # the service takes the same file
    got = config.build(config_file=str(toml), environ={})
    assert got["FEED_DELAY_S"] == 30.0 and got["FEED_DUPLICATE"] is True
    assert got["USERS_DB"] == str(tmp_path / "accounts" / "u.sqlite3")  # relative to table.toml, as run takes it
    assert got["SECRET_KEY"] == "0123456789abcdef-key"
    # A typo, or a web setting the service's [web] does not take, is still refused, naming it.
    for bad in ("feed_dely_s = 60", "login_max_failures = 3"):
        toml.write_text(head + f"[web]\n{bad}\n", encoding="utf-8")
        with pytest.raises(ConfigError, match=bad.split(" ")[0]):
            config.build(config_file=str(toml), environ={})


def test_the_web_layer_knows_the_service_s_web_keys():
    """The web layer may not import the table's schema: its copy is held equal here."""
    assert set(config.SERVICE_WEB_KEYS) == set(SERVICE_SCHEMA["web"])


def test_user_add_with_the_table_toml_is_an_account_the_panel_knows(tmp_path, monkeypatch, capsys):
    """``guandan-table user add chief --role chief --config table.toml``, run from another folder:
    the account is in the table's data_dir, and nothing is written where the command ran."""
    toml = tmp_path / "etc" / "table.toml"
    toml.parent.mkdir()
    shutil.copy(ROOT / "examples" / "table-sim.toml", toml)
    elsewhere = tmp_path / "home"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("GUANDAN_WEB_CONFIG", raising=False)
    monkeypatch.delenv("GUANDAN_WEB_USERS_DB", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO("a-long-password\n"))
    assert main(["user", "add", "chief", "--role", "chief", "--config", str(toml), "--password-stdin"]) == 0
    assert list(elsewhere.iterdir()) == []
    db = load_service_config(toml).data_dir / "web-users.sqlite3"
    conn = users.connect(db, create=False)
    try:
        assert [(u.name, u.role) for u in users.list_users(conn)] == [("chief", "chief")]
    finally:
        conn.close()
    capsys.readouterr()
    assert main(["user", "list", "--config", str(toml)]) == 0
    assert "chief" in capsys.readouterr().out


def test_user_add_reads_the_whole_table_toml_as_run_does(tmp_path):
    """The s39 audit: ``user add --config table.toml`` read only ``[web]``, so a table.toml that ``run``
    refuses (here a ``[service]`` typo, and a ``[web]`` users_db that the environment would have
    overridden) was taken and the account written. The command checks the file by run's schema, says
    every problem, and writes nothing; it also never lets GUANDAN_WEB_USERS_DB move a table's accounts
    away from the database ``run`` opens."""
    import os
    import subprocess

    toml = tmp_path / "table.toml"
    shutil.copy(ROOT / "examples" / "table-sim.toml", toml)
    good = toml.read_text(encoding="utf-8")
    toml.write_text(good + '\n[service]\nformat = "bogus"\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GUANDAN_WEB_")}
    env["GUANDAN_WEB_USERS_DB"] = str(tmp_path / "elsewhere.sqlite3")
    cmd = [sys.executable, "-m", "table_service", "user", "add", "chief", "--role", "chief", "--config", str(toml),
           "--password-stdin"]
    res = subprocess.run(cmd, cwd=ROOT, env=env, input="a-long-password\n", capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 2 and "[service].format" in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.toml"]
    toml.write_text(good, encoding="utf-8")  # fixed: the account goes where run looks, whatever the environment
    res = subprocess.run(cmd, cwd=ROOT, env=env, input="a-long-password\n", capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert not (tmp_path / "elsewhere.sqlite3").exists()
    conn = users.connect(load_service_config(toml).users_db_path, create=False)
    try:
        assert [u.name for u in users.list_users(conn)] == ["chief"]
    finally:
        conn.close()


def test_a_relative_users_db_in_a_web_settings_file_is_from_the_files_folder(tmp_path, monkeypatch):
    """A web settings file's ``USERS_DB = "accounts.sqlite3"`` was taken from the working folder: the
    same file read from two folders (``user add`` here, the panel there) named two databases."""
    cfg = tmp_path / "conf"
    cfg.mkdir()
    (cfg / "web.toml").write_text('USERS_DB = "db/accounts.sqlite3"\n', encoding="utf-8")
    (cfg / "web2.toml").write_text('[web]\nusers_db = "/srv/panel/accounts.sqlite3"\n', encoding="utf-8")
    for cwd in (tmp_path, cfg):
        monkeypatch.chdir(cwd)
        for named in (str(cfg / "web.toml"), "web.toml" if cwd == cfg else "conf/web.toml"):
            assert config.build(config_file=named, environ={})["USERS_DB"] == str(cfg / "db" / "accounts.sqlite3")
        assert config.build(config_file="web2.toml" if cwd == cfg else str(cfg / "web2.toml"),
                            environ={})["USERS_DB"] == "/srv/panel/accounts.sqlite3"
