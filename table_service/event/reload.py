"""What a reload of a changed EVENT.toml keeps of the hub's own edits (before anything is drawn).

The organiser edits at the hub (a team's name or players, the event's settings, a late team) and,
the same morning, edits EVENT.toml and restarts the hub (a table added, a typo fixed). Before, the
reload replaced the configuration whole and every edit made at the hub was gone unseen. The rule
now (docs/hub-protocol.md, *A changed EVENT.toml*):

- The new file is the base; each of the hub's edits still in force
  (:attr:`~.state.HubState.hub_edits`, oldest first) goes on over it, field by field.
- Where the file changed the very thing an edit changed — the field differs between the file as
  last loaded and the file now, or the file now has a team of the id the hub added — the file wins:
  it is the later word, written by someone who meant that team or setting. The hub's edit (that
  field of it) is not kept, and ``notes`` says so, Chinese first, naming teams by their names.
- An edit that no longer fits the new file (its team gone from it, a name another team of the
  file now has, 2 players where the file is now a duplicate event, a ruleset the file's
  ``[ruleset_options]`` do not fit, a table too few for one more team, a round robin longer than
  the circle of the file's teams) is not kept either, and said. The rounds, draw method and match points (:mod:`.settings`) are fields of
  ``event_edited`` like its name, merged the same way.
- Withdrawals (``team_withdrawn``, ``team_reinstated``) are not configuration: they stay as they
  are logged, whatever the file says.

Pure: the decision is made here, before the reload is logged, and written into ``event_loaded``
(``kept``: ``[{"seq", "fields"}]``; ``notes``: ``[[Chinese, English]]``). The fold
(:meth:`~.state.HubState.apply`) only follows it, so a replay never decides again and a later
release with another rule replays this log as it was.
"""

from __future__ import annotations

import copy
from typing import Any

from table_service.event.config import draw_method, late_team, team_name, team_players
from table_service.event.model import EventInputError
from table_service.event.settings import SETTING_WORDS, SETTINGS, round_robin_fits
from table_service.event.state import HubState, edit_config
from table_service.rules.ruleset import get_ruleset

#: Each edit's fields as a note names them: (Chinese, English).
FIELD_WORDS = {"team_edited": {"name": ("队名", "name"), "players": ("选手", "players")},
               "event_edited": {"name": ("名称", "name"), "ruleset": ("规则", "ruleset"),
                                "format": ("赛制", "format"), **SETTING_WORDS}}


def reload_data(state: HubState, config: dict[str, Any]) -> dict[str, Any]:
    """``event_loaded``'s data for ``config`` (EVENT.toml as read now) over ``state``: the
    configuration, which of the hub's edits go on over it (``kept``) and what was not kept (``notes``)."""
    old = state.loaded_cfg or {"event": {}, "teams": []}
    work = copy.deepcopy(config)
    kept: list[dict[str, Any]] = []
    notes: list[list[str]] = []
    dropped_teams: set[str] = set()  # added at the hub and not kept: their later edits go with them unsaid
    for e in state.hub_edits:
        d = e["data"]
        if e["type"] == "team_added":
            fields = _added(d, config, work, notes, state.withdrawn)
            if not fields:
                dropped_teams.add(d["team"])
        elif e["type"] == "team_edited":
            fields = _team_edit(d, old, config, work, notes, quiet=d["team"] in dropped_teams)
        else:
            fields = _event_edit(d, old, config, work, notes)
        if fields:
            edit_config(work, e["type"], {k: v for k, v in d.items() if k == "team" or k in fields})
            kept.append({"seq": e["seq"], "fields": sorted(fields)})
    return {"config": config, "kept": kept, "notes": notes}


def _both(exc: EventInputError) -> tuple[str, str]:
    """A refusal's two halves ("中文 / English")."""
    zh, sep, en = str(exc).partition(" / ")
    return (zh, en) if sep else (zh, zh)


def _team(cfg: dict[str, Any], tid: str) -> dict[str, Any] | None:
    return next((t for t in cfg.get("teams", []) if t["id"] == tid), None)


def _added(d: dict[str, Any], config: dict[str, Any], work: dict[str, Any], notes: list[list[str]],
           withdrawn: Any = ()) -> set[str]:
    """A team added at the hub: kept whole, or not at all when the file now has its id (the file's
    team wins) or it no longer fits the file (its name taken, its players, the tables)."""
    same = _team(config, d["team"])
    if same is not None:
        notes.append([f"EVENT.toml 现有队号 {d['team']}（「{same['name']}」），赛事中心添加的「{d['name']}」未保留",
                      f"EVENT.toml now has team {same['name']} as {d['team']}: the team added at the hub as "
                      f"{d['name']} is not kept"])
        if d["team"] in withdrawn:
            # A withdrawal is logged by id and stays (not configuration): the file's team of that id
            # now carries the added team's. Said, so the chief reinstates it where that was not meant.
            notes.append([f"「{d['name']}」已退赛，退赛记录现属于 EVENT.toml 的「{same['name']}」（{d['team']}）："
                          "如非本意，请为其恢复参赛",
                          f"{d['name']} had withdrawn: the withdrawal now stands for EVENT.toml's {same['name']} "
                          f"({d['team']}); reinstate it if that is not meant"])
        return set()
    try:
        late_team(work, d["team"], d["name"], list(d["players"]))
    except EventInputError as exc:
        zh, en = _both(exc)
        notes.append([f"赛事中心添加的「{d['name']}」未保留：{zh}", f"the team added at the hub as {d['name']} is not "
                      f"kept: {en}"])
        return set()
    return {"name", "players"}


def _team_edit(d: dict[str, Any], old: dict[str, Any], config: dict[str, Any], work: dict[str, Any],
               notes: list[list[str]], *, quiet: bool) -> set[str]:
    """A team's edit at the hub: each field kept unless the file changed it since it was last
    loaded (then the file's stands) or it no longer fits; nothing kept of a team no longer there."""
    team = _team(work, d["team"])
    if team is None:
        if not quiet:
            notes.append([f"队伍「{d.get('name', d['team'])}」（{d['team']}）已不在 EVENT.toml 中，赛事中心对它的修改未保留",
                          f"team {d.get('name', d['team'])} ({d['team']}) is no longer in EVENT.toml: its edit at "
                          "the hub is not kept"])
        return set()
    was, now = _team(old, d["team"]), _team(config, d["team"])
    dup = bool(config["event"]["scoring"].get("duplicate"))
    fields: set[str] = set()
    for f in ("name", "players"):
        if f not in d:
            continue
        zh_f, en_f = FIELD_WORDS["team_edited"][f]
        if now is not None and (was is None or was[f] != now[f]):
            if d[f] != now[f] and not quiet:
                notes.append([f"EVENT.toml 改了「{now['name']}」的{zh_f}，赛事中心的修改（{_shown(d[f])}）未保留",
                              f"EVENT.toml changed the {en_f} of {now['name']}: the hub's edit ({_shown(d[f])}) is "
                              "not kept"])
            continue
        try:
            if f == "name":
                team_name(d[f], work["teams"], d["team"])
            else:
                team_players(list(d[f]), dup)
        except EventInputError as exc:
            zh, en = _both(exc)
            notes.append([f"赛事中心对「{team['name']}」{zh_f}的修改未保留：{zh}",
                          f"the hub's edit of {team['name']}'s {en_f} is not kept: {en}"])
            continue
        fields.add(f)
    return fields


def _event_edit(d: dict[str, Any], old: dict[str, Any], config: dict[str, Any], work: dict[str, Any],
                notes: list[list[str]]) -> set[str]:
    """The event's settings edited at the hub: each field kept unless the file changed it since it
    was last loaded (then the file's stands) or it no longer fits the file: a ruleset its
    ``[ruleset_options]`` do not take, a round robin longer than the circle of its teams
    (``work``: the new file with the edits kept so far)."""
    fields: set[str] = set()
    for f in ("name", "ruleset", "format", *SETTINGS):
        if f not in d:
            continue
        zh_f, en_f = FIELD_WORDS["event_edited"][f]
        if old["event"].get(f) != config["event"].get(f):
            if d[f] != config["event"].get(f):
                notes.append([f"EVENT.toml 改了赛事{zh_f}，赛事中心的修改（{_shown(d[f])}）未保留",
                              f"EVENT.toml changed the event's {en_f}: the hub's edit ({_shown(d[f])}) is not kept"])
            continue
        if f == "ruleset":
            try:
                get_ruleset(d[f], **config["event"].get("ruleset_options", {}))
            except (KeyError, ValueError, TypeError) as exc:
                notes.append([f"赛事中心选的规则 {d[f]} 与 EVENT.toml 的 [ruleset_options] 不符，未保留",
                              f"the ruleset {d[f]} chosen at the hub does not take EVENT.toml's [ruleset_options] "
                              f"({str(exc)[:80]}): not kept"])
                continue
        if f in SETTINGS:
            try:
                _setting_fits(f, d, work, fields)
            except EventInputError as exc:
                zh, en = _both(exc)
                notes.append([f"赛事中心对{zh_f}的修改（{_shown(d[f])}）未保留：{zh}",
                              f"the hub's edit of the {en_f} ({_shown(d[f])}) is not kept: {en}"])
                continue
        fields.add(f)
    return fields


def _setting_fits(f: str, d: dict[str, Any], work: dict[str, Any], fields: set[str]) -> None:
    """Refuse the hub's ``f`` (rounds, draw method, match points) where it does not fit the new
    file with the fields of this edit kept so far, as the edit itself was checked
    (:mod:`.settings`): nothing is drawn at a reload, so only the file's teams and byes bound it."""
    if f == "match_points":  # any scheme fits any file: an own bye_points is below a win in each
        return
    event = {**work["event"], **{k: d[k] for k in fields if k in SETTINGS}, f: d[f]}
    round_robin_fits(event["rounds"], len(work["teams"]), draw_method({**work, "event": event}))


def _shown(value: Any) -> str:
    """An edited value as a note shows it: players joined, a format as its kind and number."""
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if isinstance(value, dict):
        return " ".join(str(v) for v in value.values())
    return str(value)
