"""``guandan-table user add --help`` names every role ``--role`` accepts, from the one list of roles
(it said "viewer / referee / chief" while the choices also held ``spectator``)."""

from __future__ import annotations

import pytest

from table_service.cli import main
from table_service.web import users


def test_the_role_help_lists_every_choice(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["user", "add", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps the help: compare unwrapped
    help_text = text.split("options:", 1)[1].split("--role", 1)[1].split("--password-stdin", 1)[0]
    for role in users.ROLES:
        zh, en = users.role_label(role)
        assert f"{role} = {zh} / {en}" in help_text, (role, help_text)
    assert help_text.index("角色") < help_text.index("role,"), "Chinese first"
