"""The chief referee's accounts page (账号): the ``guandan-table user`` commands as forms.

List the accounts of this server (each table's Pi and the event hub keep their own users
database), add one, change a password or a role, remove one, and lift a lock-out left by failed
logins. Chief referee only; every form carries the CSRF token (the app's ``check_csrf`` hook).

Event accounts (赛事账号, :mod:`.event_accounts`): on the hub's page the chief marks accounts valid
at every table (a new account is marked by default: the box is ticked); after every change the hub
sends the marked set to the tables (``app.extensions["guandan_event_accounts"]``, which only the
hub's app has — that is how this page knows it is the hub's). On a table's page the accounts that
came from the hub are listed read-only, "来自赛事中心 / from the event hub", and the page says
that a local account of the same name wins.

The database work is :mod:`.users`' (the command line's functions): this module only reads the
form, refuses what the page must not allow (yourself removed or given another role; the last
chief, which :mod:`.users` refuses inside the statement itself) and answers. A refusal is one line,
Chinese first, with ``400``: the page again with the message, or ``{"ok": false, "error"}`` to a
client that asks for JSON; a success redirects to the page with the message (``{"ok": true,
"message"}`` as JSON). Passwords are never echoed, put into a message or logged.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    current_app,
    flash,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from . import event_accounts, users
from .auth import get_db, require_role
from .security import LoginLimiter
from .tables import web_state

log = logging.getLogger(__name__)

bp = Blueprint("accounts", __name__, url_prefix="/accounts")

def _limiter() -> LoginLimiter | None:
    return web_state().limiter


def _wants_json() -> bool:
    return request.accept_mimetypes.best == "application/json"


def _is_hub() -> bool:
    """Whether this is the event hub's page (its app sends the event accounts; a table's does not)."""
    return "guandan_event_accounts" in current_app.extensions


def _view() -> dict[str, Any]:
    """What the page shows: every account with its lock-out and scope (``local``; at the hub
    ``event``: valid at every table; at a table ``hub``: from the event hub, read-only), the
    addresses locked as a whole, and the event accounts' set (at the hub: the version sent; at a
    table: the version received and the hub's names a local account shadows)."""
    lim = _limiter()
    by_name, by_address = lim.lockouts() if lim else ({}, {})
    me = g.user.name
    db = get_db()
    scopes = users.scopes(db)
    rows = []
    for u in users.list_users(db):
        failures, wait = by_name.get(u.name.lower(), (0, 0.0))
        rows.append({"name": u.name, "role": u.role, "you": u.name == me, "failures": failures,
                     "locked": wait > 0, "retry_after_s": int(wait) + 1 if wait > 0 else 0,
                     "scope": scopes.get(u.name, "local"), "can_event": u.role in users.EVENT_ROLES})
    addresses = [{"address": a, "failures": n, "retry_after_s": int(w) + 1}
                 for a, (n, w) in sorted(by_address.items()) if w > 0]
    hub = _is_hub()
    return {"users": rows, "locked_addresses": addresses, "roles": list(users.ROLES),
            "min_password": users.MIN_PASSWORD, "max_password": users.MAX_PASSWORD,
            "chiefs": sum(1 for r in rows if r["role"] == "chief"), "hub": hub,
            "event_roles": list(users.EVENT_ROLES),
            "event_set": event_accounts.sent_view(db) if hub else event_accounts.received_view(db)}


@bp.get("/")
@require_role("chief")
def index() -> Any:
    """The page (or, to a client that asks for JSON, what it shows)."""
    view = _view()
    if _wants_json():
        return jsonify(view)
    return render_template("accounts.html", **view)


# ------------------------------------------------------------------------------ the forms


#: The forms' text fields, as a message names them.
_LABELS = {"name": ("用户名", "the user name"), "address": ("地址", "the address")}


def _text(field: str, max_len: int) -> str:
    raw = request.form.get(field, "")
    if len(raw) > max_len:
        zh, en = _LABELS[field]
        raise users.UserError(f"{zh}过长（最多 {max_len} 个字符） / {en} is longer than {max_len} characters")
    if not raw.isprintable():
        # An ESC or CR in an address was echoed back into the page's message (and the log): refused.
        zh, en = _LABELS[field]
        raise users.UserError(f"{zh}含控制字符 / {en} holds a control character")
    return raw


def _account(*, not_me: str | None = None) -> str:
    """The account the form names: one that exists (and, with ``not_me``, not the chief's own)."""
    name = request.form.get("name", "")
    if not name or len(name) > 64:
        raise users.UserError("请选择账号 / choose an account")
    if users.get_user(get_db(), name) is None:
        raise users.UserError(f"没有该用户：{name!r} / no such user: {name!r}")
    if not_me and name == g.user.name:
        raise users.UserError(not_me)
    return name


def _new_password() -> str:
    """The password field, repeated (when the form sends the repeat) and within the limits."""
    password = request.form.get("password", "")
    users.check_password(password)  # the one rule of the page and the command
    if "password2" in request.form and request.form["password2"] != password:
        raise users.UserError("两次输入的密码不一致 / the passwords differ")
    return password


def _role() -> str:
    role = request.form.get("role", "")
    if role not in users.ROLES:
        shown = role if len(role) <= 20 else role[:20] + "…"
        raise users.UserError(f"未知角色 {shown!r}（可选 {'/'.join(users.ROLES)}） / unknown role {shown!r} (one of {'/'.join(users.ROLES)})")
    return role


def _answer(action: Callable[[], str]) -> Callable[[], Any]:
    """A form's view: run ``action``; its message on the page after a redirect (or as JSON), its
    refusal as a 400 with the page again (the account name and role kept, never a password)."""

    @functools.wraps(action)
    def view() -> Any:
        try:
            message = action()
        except users.UserError as exc:
            error = str(exc)
            if _wants_json():
                return jsonify(ok=False, error=error, status=400), 400
            adding = request.endpoint == "accounts.add"
            kept = {"add_name": request.form.get("name", "")[:64] if adding else "",
                    "add_role": request.form.get("role", "") if adding else "",
                    "add_event": request.form.get("event", "") in _MARKED if adding else True}
            return render_template("accounts.html", error=error, **kept, **_view()), 400
        if _wants_json():
            return jsonify(ok=True, message=message)
        flash(message, "ok")
        return redirect(url_for("accounts.index"))

    return require_role("chief")(view)


#: The ``event`` field's values: marked (the hub's box ticked: ``1``, a browser's ``on``) or not.
_MARKED, _UNMARKED = ("1", "on"), ("", "0")
NOT_THE_HUB = ("本服务器不是赛事中心：赛事账号在赛事中心的账号页设置 / this server is not the event hub: event "
               "accounts are marked on the hub's accounts page")


def _marked() -> bool:
    """The form's ``event`` field: whether the account is to be an event account (the hub only)."""
    value = request.form.get("event", "")
    if value not in _MARKED + _UNMARKED:
        raise users.UserError(f"event 只能是 1 或 0，收到 {value[:20]!r} / event must be 1 or 0, got {value[:20]!r}")
    if value in _MARKED and not _is_hub():
        raise users.UserError(NOT_THE_HUB)
    return value in _MARKED


def _sent() -> tuple[str, str]:
    """At the hub, after a change: send the event accounts to the tables, and say so when the set
    changed (a new version); elsewhere nothing. The Chinese and the English tail, each for its own
    half of the message (one tail after the English half left the Chinese reader without it)."""
    if not _is_hub():
        return "", ""
    db = get_db()
    before = event_accounts.sent_view(db)
    current_app.extensions["guandan_event_accounts"]()
    after = event_accounts.sent_view(db)
    if after is None or after == before:
        return "", ""
    n = after["version"]
    return f"；赛事账号第 {n} 版已发往各比赛桌", f"; event accounts version {n} sent to the tables"


def _add() -> str:
    name = _text("name", 64).strip()
    role = _role()
    marked = _marked()
    if marked and role not in users.EVENT_ROLES:
        raise users.UserError(users.EVENT_ROLE_ONLY)
    user = users.add_user(get_db(), name, _new_password(), role, scope="event" if marked else "local")
    log.info("accounts: %s added %r (%s%s)", g.user.name, user.name, user.role, ", event account" if marked else "")
    where = "，在每张比赛桌有效" if marked else ""
    where_en = ", valid at every table" if marked else ""
    sent_zh, sent_en = _sent()
    return (f"已添加 {user.name}（{users.role_label(user.role)[0]}）{where}{sent_zh}"
            f" / added {user.name} ({user.role})"
            f"{where_en}{sent_en}")


def _event() -> str:
    """Mark an account an event account (valid at every table) or take the mark off (the hub only)."""
    if not _is_hub():
        raise users.UserError(NOT_THE_HUB)
    name = _account()
    if "event" not in request.form:
        raise users.UserError("请选择是否设为赛事账号 / event must be 1 or 0")
    marked = _marked()
    users.set_scope(get_db(), name, "event" if marked else "local")
    log.info("accounts: %s %s %r an event account", g.user.name, "made" if marked else "no longer made", name)
    sent_zh, sent_en = _sent()
    if marked:
        return (f"{name} 现为赛事账号，在每张比赛桌有效{sent_zh} / {name} is now an event account, valid at every "
                f"table{sent_en}")
    return (f"{name} 不再是赛事账号，各比赛桌将删除该账号{sent_zh} / {name} is no longer an event account: the tables "
            f"remove it{sent_en}")


def _password() -> str:
    name = _account()
    users.set_password(get_db(), name, _new_password())  # ends every session of the account
    log.info("accounts: %s changed the password of %r", g.user.name, name)
    if name == g.user.name:
        # The chief's own sessions ended with the change, this one too: this tablet goes on
        # with a new session, every other device must log in again.
        csrf = session.get("csrf")
        session.clear()
        session["sid"] = users.open_session(get_db(), name)
        if csrf:
            session["csrf"] = csrf
        session.permanent = True
        sent_zh, sent_en = _sent()
        return f"密码已修改，其他设备上的登录已失效{sent_zh} / password changed; your other sessions have ended{sent_en}"
    sent_zh, sent_en = _sent()
    return (f"{name} 的密码已修改，其登录已全部失效{sent_zh} / password of {name} changed; every session of it "
            f"has ended{sent_en}")


def _set_role() -> str:
    name = _account(not_me="不能修改自己的角色，请另一位裁判长操作 / you cannot change your own role: ask another "
                           "chief referee")
    user = users.set_role(get_db(), name, _role())
    log.info("accounts: %s gave %r the role %s", g.user.name, name, user.role)
    sent_zh, sent_en = _sent()
    return (f"{name} 的角色已改为{users.role_label(user.role)[0]}，下一次操作起生效{sent_zh} / {name} is now "
            f"{user.role}, from the next request on{sent_en}")


def _remove() -> str:
    name = _account(not_me="不能删除自己的账号 / you cannot remove your own account")
    users.remove_user(get_db(), name, keep_a_chief=True)
    log.info("accounts: %s removed %r", g.user.name, name)
    # At a table, the hub's account this local one shadowed comes in now.
    came = event_accounts.resync(get_db()) if not _is_hub() else None
    hub_zh, hub_en = (("；赛事中心的同名账号现已生效", f"; the event hub's account {name} now holds here")
                      if came is not None and came.added else ("", ""))
    sent_zh, sent_en = _sent()
    return f"已删除 {name}，其登录已失效{hub_zh}{sent_zh} / removed {name}; its sessions have ended{hub_en}{sent_en}"


def _unlock() -> str:
    lim = _limiter()
    if lim is None:
        raise users.UserError("本服务不能解除锁定 / this server cannot lift lock-outs")
    address = _text("address", 64)
    if address:
        try:
            ipaddress.ip_address(address)
        except ValueError:
            # A lock-out is kept per client address as the server saw it: anything else has none,
            # and "no failed logins from it" told the chief a typo had been looked up.
            raise users.UserError(f"地址无效：{address}（须为 IP 地址，如 192.168.1.20） / not an IP address: "
                                  f"{address} (e.g. 192.168.1.20)") from None
        n = lim.unlock_address(address)
        log.info("accounts: %s lifted the lock-out of address %r", g.user.name, address)
        return (f"已解除地址 {address} 的登录锁定 / lifted the lock-out of address {address}" if n else
                f"地址 {address} 没有失败记录 / no failed logins from {address}")
    name = _account()
    n = lim.unlock(name)
    log.info("accounts: %s lifted the lock-out of %r", g.user.name, name)
    return (f"已解除 {name} 的登录锁定 / lifted the lock-out of {name}" if n else
            f"{name} 没有失败记录 / no failed logins for {name}")


for _rule, _fn in (("add", _add), ("password", _password), ("role", _set_role), ("remove", _remove),
                   ("unlock", _unlock), ("event", _event)):
    bp.add_url_rule(f"/{_rule}", endpoint=_rule, view_func=_answer(_fn), methods=["POST"])
