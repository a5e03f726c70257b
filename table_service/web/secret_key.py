"""The key that signs the panel's session cookies, kept in the data folder so a restart keeps everyone logged in.

Why: without ``[web] secret_key`` the app drew a new random key at every start, so a Pi rebooted
mid-round (or a hub restarted) logged every referee out and a form left open answered "CSRF token
missing or invalid", its typed result lost. The key is drawn once, written owner-only beside the
users database, and read back at each start. A key in ``table.toml`` still wins.
"""

from __future__ import annotations

import logging
import secrets
from pathlib import Path

from table_service.store.durable import write_durably

#: The file name, in the folder of the service's data.
SECRET_KEY_FILE = "web-secret.key"

log = logging.getLogger(__name__)


def kept_secret_key(folder: str | Path) -> str | None:
    """The key kept in ``folder`` (drawn and written there on first use); None when the folder
    cannot hold it (logged: the app then draws a key for this run, as before)."""
    path = Path(folder) / SECRET_KEY_FILE
    try:
        key = path.read_text(encoding="ascii").strip()
        if len(key) >= 32:
            return key
        log.warning("登录密钥文件 %s 过短：已另生成一个 / session key file %s is too short: a new one is drawn",
                    path, path)
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("登录密钥文件 %s 无法读取（%s）：已另生成一个 / session key file %s unreadable (%s): a new one "
                    "is drawn", path, exc, path, exc)
    key = secrets.token_hex(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_durably(path, (key + "\n").encode("ascii"), mode=0o600)
    except OSError as exc:
        log.warning("登录密钥无法保存到 %s（%s）：服务重启后所有登录失效 / session key not kept in %s (%s): logins end "
                    "when the service restarts", path, exc, path, exc)
        return None
    return key
