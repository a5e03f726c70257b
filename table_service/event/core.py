"""The checks every organiser action passes: "may this happen?", answered from the hub's state.

Pure: no clock, no SQLite, no MQTT. :class:`HubCore` is the hub's state
(:class:`~.state.HubState`, folded from its log) with the checks: each answers with
``(type, data)`` to log, or :class:`~.model.EventInputError`. The service logs first and applies
second (:meth:`~.state.HubState.apply`), so a check never changes the state itself.

A draft knows the results it was drawn from (``round_drawn``'s ``inputs_seq``: the seq of the last
event that changed what a draw is made from — a result recorded or corrected, a team withdrawn,
reinstated or added). A draft drawn before such a change is stale (:meth:`HubCore.draft_changes`): the pages
say so and :meth:`HubCore.check_publish` refuses it, naming the changes and asking for the one-tap
redraw; a published draw never changes.

Deadlines (rules file, "Corrections and appeals"): an entry error may be corrected within
10 minutes of the result; once the round's results are published, within 20 minutes of that;
an appeal within 30 minutes after the table's round. Past a deadline only the chief referee
(``chief``) may act, and the event says it was late.

A correction is made against the result the referee saw (its ``basis``: the seq of the hub event
that set it, :attr:`~.state.TableResult.seq`); :meth:`HubCore.check_correction_basis` refuses one whose
basis is no longer the table's current result, naming what changed, by whom and when (two chief
referees correcting the same table from pages opened before either submitted: the second reloads
and decides, nothing is overwritten unseen).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from table_service.engine.errors import halves
from table_service.engine.names import says_something
from table_service.event.config import FORMATS, first_round_of, late_team, scoring_of, team_name, team_players
from table_service.event.draw import make_draw
from table_service.event.model import EventInputError, RoleRefused, parse_result, reused_id_reason
from table_service.event.refusal_words import changed_since_words, hhmm, score_words, who_words
from table_service.event.reload import reload_data
from table_service.event.settings import check_settings, draft_settings_words
from table_service.event.state import HubState
from table_service.rules.ruleset import get_ruleset
from table_service.views.wire import control_character

ENTRY_WINDOW_MS = 10 * 60_000
PUBLISHED_WINDOW_MS = 20 * 60_000
APPEAL_WINDOW_MS = 30 * 60_000
ROLE_RANK = {"spectator": 0, "viewer": 1, "referee": 2, "chief": 3}


def _can(role: str | None, need: str) -> bool:
    return ROLE_RANK.get(role or "", -1) >= ROLE_RANK[need]


def need_role(role: str | None, need: str, what: str) -> None:
    """Refuse ``what`` (Chinese, for the message) unless ``role`` is at least ``need``."""
    if not _can(role, need):
        raise RoleRefused(f"{what}需要{'裁判' if need == 'referee' else '裁判长'}权限 / requires role {need}")


class HubCore(HubState):
    """The hub's state with the checks of every organiser action and every result offered."""

    def check_draw(self, role: str | None) -> tuple[str, dict[str, Any]]:
        """``round_drawn`` for the next round (or a redraw of an unpublished one)."""
        need_role(role, "referee", "编排")
        assert self.cfg is not None
        pub = self.published_rounds
        nxt = (max(pub) + 1) if pub else 1
        if nxt > self.cfg["event"]["rounds"]:
            raise EventInputError(f"全部 {self.cfg['event']['rounds']} 轮已编排 / all {self.cfg['event']['rounds']} "
                                  "rounds are drawn")
        if pub and not self.round_complete(max(pub)):
            missing = [t["table"] for t in self.draws[max(pub)]["tables"] if (max(pub), t["table"]) not in self.results]
            raise EventInputError(f"第 {max(pub)} 轮还缺 {len(missing)} 桌成绩（{', '.join(missing[:10])} 号桌） / round {max(pub)} still lacks the "
                                  f"result of table(s) {', '.join(missing[:10])}")
        method = self.method_now()
        first, order = self.first_round_now()
        draw = make_draw(method, self.teams, self.result_objects(), scoring_of(self.cfg),
                         seed=self.cfg["event"]["seed"], round_no=nxt, recorded_lots=self.lots,
                         withdrawn=set(self.withdrawn), first_round=first, order=order)
        phys = [t["id"] for t in self.cfg["tables"]]
        tables = []
        for i, (t, ns, ew) in enumerate(draw.tables):
            entry: dict[str, Any] = {"table": phys[i] if phys else t, "ns": ns, "ew": ew}
            if t[-1:] in ("A", "B") and draw.info.get("duplicate"):
                entry.update(room=t[-1], match=int(t[:-1]))
            tables.append(entry)
        info = {k: v for k, v in draw.info.items() if k not in ("regions", "first_round", "lots")}
        # Round 1: how it was drawn, and the lots' order (the record a round robin's later rounds follow)
        first_words = {"first_round": first, **({"lots": draw.info["lots"]} if "lots" in draw.info else {})}
        return "round_drawn", {"round": nxt, "method": draw.method, "tables": tables, "bye": draw.bye,
                               "byes": draw.byes, "info": info, "inputs_seq": self.inputs_seq,
                               "match_points": self.cfg["event"]["match_points"],
                               **(first_words if nxt == 1 else {})}

    def first_round_now(self) -> tuple[str, list[str] | None]:
        """How round 1 is drawn, and the order a draw follows: ``(first_round, order)``. Before round 1
        is published, the configuration's (``order`` None: drawn now); after, what round 1's
        ``round_drawn`` logged — its lots' order, which a round robin's later rounds go round, or
        ``"order"`` with the teams' own order for a round 1 drawn in the list's order or logged
        before the lots existed (its circle stays the one its tables were drawn from)."""
        assert self.cfg is not None
        pub = self.published_rounds
        if not pub:
            return first_round_of(self.cfg), None
        first = self.draws[pub[0]]
        if first.get("first_round") == "lots" and first.get("lots"):
            drawn = [t for t in first["lots"] if t in self.teams]
            return "lots", drawn + [t for t in self.teams if t not in drawn]
        return "order", list(self.teams)

    def assignment(self, rnd: int, t: dict[str, Any]) -> dict[str, Any]:
        """What one table receives for a round (see docs/hub-protocol.md)."""
        assert self.cfg is not None
        ev = self.cfg["event"]
        ns, ew = self.team(t["ns"]), self.team(t["ew"])
        k = 2 if t.get("room") == "B" else 0  # duplicate: each team's second pair plays room B
        for team in (ns, ew):
            if len(team["players"]) < k + 2:  # an event log from before team_players held for edits
                raise EventInputError(f"{team['name']} 队没有第二对选手，不能坐 B 室：请把选手改为 4 人 / "
                                      f"team {team['name']} has no second pair for room B: edit its players to 4")
        players = {"N": ns["players"][k], "S": ns["players"][k + 1], "E": ew["players"][k], "W": ew["players"][k + 1]}
        phys = next((x for x in self.cfg["tables"] if x["id"] == t["table"]), None)
        return {"event": ev["id"], "event_name": ev["name"], "round": rnd, "table": t["table"],
                "teams": {"NS": ns["id"], "EW": ew["id"]},
                "team_names": {"NS": ns["name"], "EW": ew["name"]},
                "players": players,
                "ruleset": {"preset": ev["ruleset"], "options": self.table_ruleset_options()},
                "format": ev["format"], "panel": phys.get("panel") if phys else None,
                **({"room": t["room"], "board": f"R{rnd}-M{t['match']}"} if t.get("room") else {})}

    def sheet_sides(self, rnd: int) -> dict[str, dict[str, Any]]:
        """Per table of round ``rnd``'s draw, who sits there as its sheets print it: ``{table: {"NS":
        {"name", "players"}, "EW": {...}}}``. A published round: what its assignments carried (a
        team edited since keeps its old name and players there, as the tables were told); a draft:
        what it would carry now (room B's second pair in a duplicate event)."""
        d = self.draws[rnd]
        out: dict[str, dict[str, Any]] = {}
        for t in d["tables"]:
            a = d["assignments"].get(t["table"]) if d["published"] else None
            if a is None:
                try:
                    a = self.assignment(rnd, t)
                except EventInputError:  # a team without a second pair (an old log): its first, as drawn
                    a = {"team_names": {"NS": self.team(t["ns"])["name"], "EW": self.team(t["ew"])["name"]},
                         "players": dict(zip("NSEW", [*self.team(t["ns"])["players"][:2],
                                                      *self.team(t["ew"])["players"][:2]], strict=False))}
            pl = a["players"]
            out[t["table"]] = {"NS": {"name": a["team_names"]["NS"], "players": [pl.get("N"), pl.get("S")]},
                               "EW": {"name": a["team_names"]["EW"], "players": [pl.get("E"), pl.get("W")]}}
        return out

    def table_ruleset_options(self) -> dict[str, Any]:
        """The ruleset options a table plays under: EVENT.toml's ``[ruleset_options]`` and the
        event's match points (``match_points`` scheme, ``bye_points``) as the ruleset's
        ``match_points_*``, so a table's round result scores the match points the hub ranks by."""
        assert self.cfg is not None
        sc = scoring_of(self.cfg)
        return {**self.cfg["event"].get("ruleset_options", {}),
                **{f"match_points_{k}": getattr(sc, k) for k in ("win", "draw", "loss", "forfeit", "bye")}}

    def check_unchanged_since(self, key: str, seen: int | None, what: tuple[str, str]) -> None:
        """Refuse an edit made from a page shown before another edit of the same thing (``key``: a
        team id, or ``""`` for the event's settings; ``seen``: the log's seq the page was rendered at).
        Two chiefs editing one team: the second save overwrote the first unseen (last one won)."""
        if seen is not None and seen > self.last_seq:
            # No page was ever shown at a seq the log has not reached: a forged or mangled form, which
            # would pass every later check as if it had seen the newest edit.
            raise EventInputError(f"未保存：页面版本 {seen} 晚于赛事日志（{self.last_seq}），请刷新页面后再改 / not saved: "
                                  f"the page version {seen} is later than the event log's ({self.last_seq}); "
                                  "reload the page, then edit again")
        last = self.edits.get(key)
        if seen is not None and last is not None and last["seq"] > seen:
            by = last.get("by") or "?"
            raise EventInputError(f"未保存：{what[0]}在您打开页面后已由 {by}（{hhmm(last['t_ms'])}）修改，请核对后再改 / not "
                                  f"saved: {by} changed {what[1]} ({hhmm(last['t_ms'])}) after your page showed it; "
                                  "check it, then edit again")

    def check_team_edit(self, team: str, name: str, players: Sequence[str], role: str | None,
                        seen: int | None = None) -> tuple[str, dict[str, Any]]:
        """A team's name or players changed at the hub: they go into every assignment published
        from now on; published rounds keep what they were published with."""
        need_role(role, "referee", "修改队伍")
        if team not in self.teams:
            raise EventInputError(f"没有队伍 {team!r} / no team {team!r}")
        self.check_unchanged_since(team, seen, (f"队伍 {team}", f"team {team}"))
        assert self.cfg is not None
        players = team_players([p for p in players if p.strip()],
                               bool(self.cfg["event"]["scoring"].get("duplicate")))
        return "team_edited", {"team": team, "name": team_name(name, self.cfg["teams"], team), "players": players}

    def check_add_team(self, team: str, name: str, players: Sequence[str], role: str | None
                       ) -> tuple[str, dict[str, Any]]:
        """A late entry (a registration at the desk): ``team_added``, a team drawn from round 1 on.

        Only until the first draw is published. Why not before a later round: a round robin's
        schedule is the circle over the teams it started with (a team added after round 1 would
        meet some teams twice and never others), and a Swiss entrant at 0 points after rounds it
        never played would be ranked and paired as if it had lost them; the rules file says nothing
        of late entries, so the hub allows none once a round is out. A draft of round 1 drawn
        before becomes stale (:meth:`draft_changes`): redraw it. The role is edit_team's (a
        referee at the desk), as both only change who the next draw seats."""
        need_role(role, "referee", "添加队伍")
        assert self.cfg is not None
        if self.published_rounds:
            raise EventInputError(f"第 {self.published_rounds[0]} 轮编排已公布，不能再添加队伍（报名须在第一轮公布前） / round "
                                  f"{self.published_rounds[0]} is published: a team can only be added before the first "
                                  "draw is published")
        data = late_team(self.cfg, team, name, list(players))
        if data["team"] in self.withdrawn:  # a withdrawn team's id (one EVENT.toml no longer lists): not reused
            raise EventInputError(f"队号 {data['team']} 属于已退赛的队，请换一个 / the id {data['team']} is a withdrawn "
                                  "team's: choose another")
        return "team_added", data

    def check_reload(self, config: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """``event_loaded`` for EVENT.toml as read now (a first load, or a changed file before
        anything is drawn): on a reload, with which of the hub's own edits go on over it and what
        is not kept, and why (:func:`~.reload.reload_data`)."""
        if self.cfg is None:
            return "event_loaded", {"config": config}
        return "event_loaded", reload_data(self, config)

    def check_event_edit(self, name: str, ruleset: str, fmt: dict[str, Any], role: str | None,
                         seen: int | None = None, *, rounds: int | None = None, draw: str | None = None,
                         match_points: str | None = None) -> tuple[str, dict[str, Any]]:
        """The event's name, ruleset preset or round format changed at the hub: they go into the
        assignments published from now on. With them, the number of rounds, the draw method and the
        match points scheme, each only where it changes and only while its rule allows
        (:func:`~.settings.check_settings`: the draw method and the match points until round 1
        is published). Byes and the duplicate comparison stay EVENT.toml's."""
        need_role(role, "chief", "修改赛事设置")
        self.check_unchanged_since("", seen, ("赛事设置", "the event's settings"))
        settings = check_settings(self, rounds, draw, match_points)
        try:
            get_ruleset(ruleset, **(self.cfg or {}).get("event", {}).get("ruleset_options", {}))
        except (KeyError, ValueError) as exc:
            zh, en = halves(str(exc))
            raise EventInputError(f"规则无效：{zh} / bad ruleset: {en}") from None
        kind = fmt.get("kind")
        known = isinstance(kind, str) and kind in FORMATS
        for key, (lo, hi) in (FORMATS[kind] if known else {}).items():  # the ranges EVENT.toml's format takes
            v = fmt.get(key)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                zh = {"deals": "副数", "minutes": "分钟"}.get(key, key)
                raise EventInputError(f"{zh}（{key}）须为 {lo}–{hi} / {key} must be {lo}-{hi}")
        if not known:
            raise EventInputError("赛制须为固定副数（deals）、限时（time）或打过 A（past_a） / format must be deals, time or past_a")
        if not says_something(name) or len(name) > 120 or control_character(name) is not None:
            raise EventInputError("赛事名称无效（1–120 个可打印字符） / an event's name is 1-120 printable characters")
        fmt = {k: v for k, v in fmt.items() if k in ("kind", "deals", "minutes") and v is not None}
        return "event_edited", {"name": name.strip(), "ruleset": ruleset, "format": fmt, **settings}

    def check_publish(self, rnd: int, role: str | None, *, draft: int | None = None) -> tuple[str, dict[str, Any]]:
        need_role(role, "referee", "公布编排")
        d = self.draws.get(rnd)
        if d is None:
            raise EventInputError(f"第 {rnd} 轮尚未编排 / round {rnd} has not been drawn")
        if d["published"]:
            raise EventInputError(f"第 {rnd} 轮编排已公布，不能更改 / the draw of round {rnd} is published and final")
        if draft is not None and d.get("drawn_seq") is not None and draft > d["drawn_seq"]:
            # No page showed a draft drawn after this one: a form sent by hand or a bug, not a redraw.
            raise EventInputError(f"未公布：第 {rnd} 轮没有编号 {draft} 的草案 / not published: round {rnd} has no draft "
                                  f"{draft}; reload the page and check the draft it shows")
        if draft is not None and draft != d.get("drawn_seq"):
            by = d.get("drawn_by") or "?"
            raise EventInputError(f"未公布：第 {rnd} 轮在您打开页面后已由 {by} 重新编排，请核对新的草案后再公布 / not published: "
                                  f"round {rnd} was drawn again by {by} after your page showed it; check the new "
                                  "draft, then publish")
        stale = self.stale_words(rnd)
        if stale is not None:
            raise EventInputError(f"未公布：{stale[0]}。请点「重新编排」按现在的成绩重排，核对后再公布 / not published: "
                                  f"{stale[1]}. Tap Redraw to draw it again from the results now in force, "
                                  "check it, then publish")
        assignments = {t["table"]: self.assignment(rnd, t) for t in d["tables"]}
        return "round_published", {"round": rnd, "assignments": assignments}

    def draft_changes(self, rnd: int) -> list[dict[str, Any]]:
        """What changed since the draft of ``rnd`` was drawn, oldest first: results recorded or
        corrected (``kind`` ``recorded`` | ``corrected``, with ``round``, ``table``, ``result``,
        ``reason``) and teams withdrawn, reinstated or added (``withdrawn`` | ``reinstated`` |
        ``added``, ``team``),
        each with ``seq``, ``t_ms`` and ``by``. Empty for a draft drawn from the results now in
        force, and for a published round (final: corrections never redraw it). A round robin's
        draft is made from the teams alone: only withdrawals and reinstatements make it stale.
        A draft drawn under settings no longer in force (:func:`~.settings.draft_settings_words`)
        is stale too: ``settings``, with ``words`` and the last settings edit's ``seq``, ``t_ms``
        and ``by``."""
        d = self.draws.get(rnd)
        if d is None or d["published"]:
            return []
        out: list[dict[str, Any]] = []
        words = draft_settings_words(self, d) if self.cfg is not None else []
        if words:
            last = self.edits.get("", {})
            out.append({"kind": "settings", "words": words, "seq": last.get("seq", 0),
                        "t_ms": last.get("t_ms", 0), "by": last.get("by")})
        since = d.get("inputs_seq", 0)
        if self.inputs_seq <= since:
            return out
        # A round robin's schedule is fixed by the teams alone: a result changes no pairing of it.
        by_results = d.get("method") != "round-robin"
        for (r, table), tr in self.results.items() if by_results else ():
            for h in tr.history:
                if h["seq"] > since:
                    out.append({"kind": "corrected" if h["source"] == "correction" else "recorded", "round": r,
                                "table": table, "result": h["result"], "reason": h.get("reason"),
                                "seq": h["seq"], "t_ms": h["t_ms"], "by": h["by"]})
        out += [dict(c) for c in self.team_changes if c["seq"] > since]
        return sorted(out, key=lambda c: c["seq"])

    def stale_words(self, rnd: int) -> tuple[str, str] | None:
        """Why the draft of ``rnd`` is stale, ``(Chinese, English)``, or None when it is not."""
        changes = self.draft_changes(rnd)
        if not changes:
            return None
        zh, en = [], []
        for c in changes[:3]:
            who, when = c["by"] or "?", hhmm(c["t_ms"])
            if c["kind"] in ("recorded", "corrected"):
                s_zh, s_en = score_words(c["result"], self.team_names())
                v_zh, v_en = ("纠正为", "corrected to") if c["kind"] == "corrected" else ("录入", "recorded as")
                zh.append(f"第 {c['round']} 轮 {c['table']} 号桌{v_zh} {s_zh}（{who} {when}）")
                en.append(f"table {c['table']}, round {c['round']} {v_en} {s_en} ({who}, {when})")
            elif c["kind"] == "settings":
                zh.append(f"{'、'.join(w[0] for w in c['words'])}（{who} {when}）")
                en.append(f"{' and '.join(w[1] for w in c['words'])} ({who}, {when})")
            else:  # a team's change, named as the pages name it
                name = self.team_names().get(c["team"], c["team"])
                v_zh, v_en = {"withdrawn": ("退赛", "withdrew"), "added": ("报名加入", "was added"),
                              "reinstated": ("恢复参赛", "was reinstated")}[c["kind"]]
                zh.append(f"「{name}」{v_zh}（{who} {when}）")
                en.append(f"team {name} {v_en} ({who}, {when})")
        if len(changes) > 3:
            zh.append(f"等共 {len(changes)} 项")
            en.append(f"{len(changes) - 3} more")
        if any(c["kind"] in ("recorded", "corrected") for c in changes):
            end_zh, end_en = "草案是按旧排名编排的", "it pairs on the old standings"
        elif all(c["kind"] == "settings" for c in changes):
            end_zh, end_en = "草案是按原来的设置编排的", "it was drawn under the old settings"
        else:  # only who plays changed: "old standings" misled where no score had
            end_zh, end_en = "草案是按原来的参赛队伍编排的", "it pairs the teams as they were"
        what = "赛事设置" if all(c["kind"] == "settings" for c in changes) else "成绩或队伍"
        return (f"第 {rnd} 轮草案编排之后{what}有变：{'；'.join(zh)}，{end_zh}",
                f"round {rnd}'s draft was drawn before {'; '.join(en)}: {end_en}")

    def check_withdraw_team(self, team: str, reason: str, role: str | None) -> tuple[str, dict[str, Any]]:
        """A team withdraws (退赛): never drawn from the next round to draw on (no bye either); its
        place in a published draw stays (a forfeit there is entered as any result), its results so
        far stay in the standings. The chief referee's."""
        need_role(role, "chief", "退赛")
        if team not in self.teams:
            raise EventInputError(f"没有队伍 {team!r} / no team {team!r}")
        w = self.withdrawn.get(team)
        if w is not None:
            raise EventInputError(f"{team} 已于 {hhmm(w['t_ms'])} 退赛（{w['by']}） / {team} withdrew already "
                                  f"({w['by']}, {hhmm(w['t_ms'])})")
        if len(self.active_teams) <= 2:
            raise EventInputError("退赛后在赛的队将不足两队 / fewer than two teams would be left in play")
        assert self.cfg is not None
        if self.next_round() > self.cfg["event"]["rounds"]:
            raise EventInputError(f"全部 {self.cfg['event']['rounds']} 轮已编排，无轮次可退 / all "
                                  f"{self.cfg['event']['rounds']} rounds are drawn: there is no round left to withdraw from")
        return "team_withdrawn", {"team": team, "from_round": self.next_round(), "reason": reason.strip()}

    def check_reinstate_team(self, team: str, role: str | None) -> tuple[str, dict[str, Any]]:
        """Undo a withdrawal, before any round is published without the team (a draft drawn
        without it becomes stale: redraw it). The chief referee's."""
        need_role(role, "chief", "恢复参赛")
        if team not in self.teams:
            raise EventInputError(f"没有队伍 {team!r} / no team {team!r}")
        w = self.withdrawn.get(team)
        if w is None:
            raise EventInputError(f"{team} 未退赛 / {team} has not withdrawn")
        if self.next_round() != w["from_round"]:
            raise EventInputError(f"第 {w['from_round']} 轮编排已公布（没有 {team}），不能恢复参赛 / round "
                                  f"{w['from_round']} is published without {team}: it can no longer be reinstated")
        return "team_reinstated", {"team": team, "from_round": w["from_round"]}

    def check_deck(self, sha256: str, size: int, file: str, meta: dict[str, Any], role: str | None
                   ) -> tuple[str, dict[str, Any]]:
        """The event's deck (a checked enrolment file, saved as ``file`` in the hub's folder): the
        chief referee's, as the deck is the event's."""
        need_role(role, "chief", "发布比赛用牌")
        if self.deck is not None and self.deck.get("sha256") == sha256:
            # The same file again (a second tap, a second desk): already handed out. Not "every table
            # has it" (the page beside it counted 0 of 15 reading with it): it is on the broker, kept for
            # each table, which takes it when it is online; the organiser page counts who reads with it.
            raise EventInputError(f"该登记文件已是比赛用牌（{sha256[:12]}），已发给各桌：离线的桌上线时收到，"
                                  f"本页显示几桌在用 / this enrolment file is already the event's deck ({sha256[:12]}), "
                                  "handed to every table: a table offline gets it when it comes back; this page "
                                  "counts the tables reading with it")
        return "deck_published", {"sha256": sha256, "size": size, "file": file, "meta": meta}

    def check_withdraw_deck(self, role: str | None) -> tuple[str, dict[str, Any]]:
        """Withdraw the event's deck (a wrong file, or the event changed decks): the tables read
        unenrolled, learning the deck in play, until another is handed out. The chief referee's."""
        need_role(role, "chief", "撤回比赛用牌")
        if self.deck is None:
            raise EventInputError("没有已发布的比赛用牌可撤回 / no event deck to withdraw")
        return "deck_withdrawn", {"sha256": self.deck["sha256"]}

    def classify_result(self, line: dict[str, Any], result_id: str, *, agreeing_is_duplicate: bool = False
                        ) -> tuple[str, str | None]:
        """``("accept", None)``, ``("duplicate", None)`` or ``("refuse", reason)`` for a result
        a table (or the hand-entry form) offers. ``agreeing_is_duplicate`` (a table's own result):
        one saying what the table's result already is, under a new id (entered by hand while its
        Pi was down, then resent by the Pi), is a duplicate, not a refusal for the chief to clear."""
        try:
            res = parse_result(line)
        except EventInputError as exc:
            return "refuse", str(exc)
        if res.ew is None:
            return "refuse", "轮空不需要成绩 / a bye has no result to report"
        key = (res.round, res.table, result_id)
        if key in self.seen_ids:
            # Only the result recorded under this id is a redelivery: another one was acknowledged
            # "accepted" and dropped, and the table showed a result the hub never had.
            first = parse_result(self.results[(res.round, res.table)].history[0]["result"], stored=True)  # as this hub reads it
            if first.to_dict() == res.to_dict():
                return "duplicate", None
            return "refuse", reused_id_reason(result_id)
        d = self.draws.get(res.round)
        if d is None or not d["published"]:
            return "refuse", f"第 {res.round} 轮未公布编排 / round {res.round} has no published draw"
        t = self.table_of(res.round, res.table)
        if t is None:
            return "refuse", (f"第 {res.round} 轮没有 {res.table} 号桌 / table {res.table} is not drawn in round "
                              f"{res.round}")
        if (t["ns"], t["ew"]) != (res.ns, res.ew):
            names = self.team_names()
            d_ns, d_ew, g_ns, g_ew = (names.get(x, x) for x in (t["ns"], t["ew"], res.ns, res.ew))
            return "refuse", (f"队伍与编排不符：编排 {d_ns}(南北) 对 {d_ew}(东西)，收到 {g_ns}(南北) 对 {g_ew}(东西) / "
                              f"teams do not match the draw (drawn NS {d_ns} v EW {d_ew}, got NS {g_ns} v EW {g_ew})")
        if (res.round, res.table) in self.results:
            if agreeing_is_duplicate and parse_result(self.results[(res.round, res.table)].line,
                                                      stored=True).to_dict() == res.to_dict():
                return "duplicate", None
            held = self.results[(res.round, res.table)]
            zh, en = score_words(held.line, self.team_names())  # what is there, and who entered it: the second person sees it
            who_zh, who_en = who_words(held.by)
            return "refuse", (f"第 {res.round} 轮 {res.table} 号桌已有成绩 {zh}（{who_zh} {hhmm(held.t_ms)}），"
                              f"改动须走纠正 / table {res.table} already has a result for round {res.round}: {en} "
                              f"({who_en}, {hhmm(held.t_ms)}); a change is a correction")
        return "accept", None

    def check_correction(self, rnd: int, table: str, line: dict[str, Any], reason: str, role: str | None,
                         now_ms: int) -> tuple[str, dict[str, Any]]:
        """``result_corrected`` replacing the table's current result (its seq is logged as the
        correction's ``basis``). Whether that is the result the referee saw is
        :meth:`check_correction_basis`'s question, asked first under the same lock."""
        need_role(role, "referee", "纠正成绩")
        cur = self.results.get((rnd, table))
        if cur is None:
            raise EventInputError(f"第 {rnd} 轮 {table} 号桌还没有成绩 / table {table} has no result in round {rnd}")
        res = parse_result(line)
        if (res.round, res.table, res.ns, res.ew) != (rnd, table, cur.line["ns"], cur.line["ew"]):
            raise EventInputError("纠正不能改轮次、桌号或队伍（编排已公布） / a correction cannot change round, table or "
                                  "teams (the published draw is final)")
        if not says_something(reason):
            raise EventInputError("请写明纠正原因 / a correction needs a reason")
        pub = self.results_published.get(rnd)
        if pub is None:
            kind, deadline = "entry", cur.history[0]["t_ms"] + ENTRY_WINDOW_MS
        else:
            kind, deadline = "published", pub + PUBLISHED_WINDOW_MS
        late = now_ms > deadline
        if late and not _can(role, "chief"):
            limit = "10" if kind == "entry" else "20"
            raise EventInputError(f"已过 {limit} 分钟纠正期限，须裁判长纠正 / past the {limit}-minute correction "
                                  "deadline: only the chief referee may correct")
        return "result_corrected", {"round": rnd, "table": table, "result": res.to_dict(), "reason": reason.strip(),
                                    "kind": kind, "deadline_ms": deadline, "late": late, "basis": cur.seq}

    def repeated_hand_entry(self, line: dict[str, Any], actor: str | None) -> bool:
        """Is ``line`` a hand entry ``actor`` has already made — the table's current result, entered
        at the hub by the same person, saying the same? A form sent twice (a double tap, a retry
        after an answer lost on the hall's network) is then answered as done, nothing logged again;
        it was refused as "the table already has a result", and the entry looked failed. Anything
        else (another person's, another result, a table's or a corrected one) is ``False``: it goes
        on to :meth:`classify_result`, which refuses it with what is there."""
        try:
            clean = parse_result(line).to_dict()
        except EventInputError:
            return False
        cur = self.results.get((clean["round"], clean["table"]))
        return (cur is not None and cur.source == "hand" and cur.by == actor
                and parse_result(cur.line, stored=True).to_dict() == clean)

    def check_correction_basis(self, rnd: int, table: str, basis: int | None, line: dict[str, Any], reason: str,
                               actor: str | None) -> bool:
        """Is the result a correction was made against still the table's current one?

        ``basis`` is the seq of the hub event that set the result the referee saw (the organiser
        page puts it in the form: :attr:`~.state.TableResult.seq`). ``False``: it is, go on with
        :meth:`check_correction`. ``True``: this very correction (same basis, result, reason and
        referee) is already logged — a double tap, a form sent again: nothing more to log. Anything
        else is refused (:class:`EventInputError`) with what changed since, by whom and when, so
        the referee reloads and decides; no correction silently replaces one its author never saw.

        ``basis=None`` (an API client from before the field): taken as the result as first
        recorded — before any correction it is the only result a client can have seen — so such a
        correction goes through until the table's result has been corrected once, and is refused,
        asking for a reload, after that.

        The caller asks this and logs the correction under the hub's lock, nothing logged between.
        """
        cur = self.results.get((rnd, table))
        if cur is None:
            raise EventInputError(f"第 {rnd} 轮 {table} 号桌还没有成绩 / table {table} has no result in round {rnd}")
        want = cur.history[0]["seq"] if basis is None else basis
        if want == cur.seq:
            return False
        last = cur.history[-1]
        try:
            clean: dict[str, Any] | None = parse_result(line).to_dict()
        except EventInputError:
            clean = None
        if (len(cur.history) >= 2 and cur.history[-2]["seq"] == want and last["source"] == "correction"
                and last["by"] == actor and last.get("reason") == reason.strip() and last["result"] == clean):
            return True
        raise EventInputError(changed_since_words(rnd, table, cur, want, basis, self.team_names()))

    def check_results_published(self, rnd: int, role: str | None) -> tuple[str, dict[str, Any]]:
        need_role(role, "referee", "公布成绩")
        if not self.round_complete(rnd):
            raise EventInputError(f"第 {rnd} 轮成绩不全 / round {rnd} is not complete")
        if rnd in self.results_published:
            raise EventInputError(f"第 {rnd} 轮成绩已公布 / round {rnd} results are already published")
        earlier = [r for r in range(1, rnd) if r in self.draws and r not in self.results_published]
        if earlier:
            # In order: the public standings stop before the first round not published, so round 2's
            # scores on the board beside standings of round 0 would read as two events.
            raise EventInputError(f"请先公布第 {earlier[0]} 轮成绩 / publish round {earlier[0]}'s results first")
        return "results_published", {"round": rnd}

    def check_appeal(self, rnd: int, table: str, team: str, text: str, role: str | None,
                     now_ms: int) -> tuple[str, dict[str, Any]]:
        need_role(role, "referee", "登记申诉")
        t = self.table_of(rnd, table)
        if t is None or not self.draws[rnd]["published"]:
            raise EventInputError(f"第 {rnd} 轮没有 {table} 号桌 / table {table} is not drawn in round {rnd}")
        if not team.strip():
            raise EventInputError(f"请选择申诉的队伍（{t['ns']} 或 {t['ew']}） / choose the team that appeals "
                                  f"({t['ns']} or {t['ew']})")
        if team not in (t["ns"], t["ew"]):
            raise EventInputError(f"{team} 不在 {table} 号桌 / team {team} did not play at table {table}")
        if not says_something(text):
            raise EventInputError("申诉须有书面理由 / an appeal must be in writing")
        same = next((a for a in self.appeals if a["decision"] is None and a["round"] == rnd and a["table"] == table
                     and a["team"] == team and a["text"] == text.strip()), None)
        if same is not None:  # a double tap, or the same appeal entered at two desks
            raise EventInputError(f"该申诉已登记为 #{same['id']}（{same['by']}），尚待裁决 / this appeal is already filed "
                                  f"as #{same['id']} (by {same['by']}), waiting for a decision")
        cur = self.results.get((rnd, table))
        if cur is None:
            raise EventInputError("该桌本轮尚未结束 / the table's round has not ended")
        deadline = cur.history[0]["t_ms"] + APPEAL_WINDOW_MS
        late = now_ms > deadline
        if late and not _can(role, "chief"):
            raise EventInputError("已过 30 分钟申诉期限，须裁判长受理 / past the 30-minute appeal deadline: only the "
                                  "chief referee may accept it")
        return "appeal_filed", {"id": len(self.appeals) + 1, "round": rnd, "table": table, "team": team,
                                "text": text.strip(), "deadline_ms": deadline, "late": late}

    def check_appeal_decision(self, appeal_id: int, decision: str, note: str, role: str | None
                              ) -> tuple[str, dict[str, Any]]:
        if not _can(role, "chief"):
            raise RoleRefused("申诉由裁判长（仲裁）裁决 / only the chief referee records an appeal decision")
        ap = next((a for a in self.appeals if a["id"] == appeal_id), None)
        if ap is None:
            raise EventInputError(f"没有第 {appeal_id} 号申诉 / no appeal {appeal_id}")
        if ap.get("decision"):
            raise EventInputError("申诉已裁决，裁决为最终 / the appeal is decided; the decision is final")
        if decision not in ("upheld", "dismissed"):
            raise EventInputError("裁决须为 upheld 或 dismissed / decision must be upheld or dismissed")
        return "appeal_decided", {"id": appeal_id, "decision": decision, "note": note.strip()}
