/* What every script of the referee panel shares; loaded first of them (after common.js). The
   state last shown (GT.state), the seats and the order of play, the penalty ladder as the engine
   counts it, one action posted to the engine (GT.act), one event read back (GT.eventDetail), and
   the hooks by which later scripts draw on every state. Apart from table.js so that the view's
   cards (panel_record.js, panel_flags.js, panel_questions.js, table.js) and panel_actions.js lean
   on one copy of it, defined before the stream's first state can arrive. */
(function () {
  "use strict";
  const app = document.getElementById("app");
  const ACTIONS = app.dataset.actions;
  const SEATS = ["E", "S", "W", "N"];
  const SIDE = { E: "EW", W: "EW", S: "NS", N: "NS" };
  /* Play runs counter-clockwise, E → N → W → S → E (rules/seats.py PLAY_ORDER): a seat's 下家 is
     the next one in this order. */
  const PLAY_ORDER = ["E", "N", "W", "S"];
  /* The event types the engine lets a referee void (engine/events.py VOIDABLE_TYPES; a test keeps
     the two lists equal), and only while the event is one of the current deal's (engine/apply.py
     _target: the deal's log runs from its drawing_finished). */
  const VOIDABLE = ["anti_tribute_declared", "tribute_given", "return_given", "cards_played", "passed",
    "report_pressed", "referee_called", "card_exposed", "zone_obstructed", "flag_confirmed", "flag_dismissed",
    "reading_declared", "tribute_corrected", "penalty_given"];
  /* Who is looking: a viewer sees the table, a referee (or the chief) gets its buttons. */
  GT.canRule = app.dataset.role !== "viewer";
  GT.isChief = app.dataset.chief === "1";
  /* The page knows from the server whether the table has a camera (panel.py has_camera): the
     camera's buttons (.needs-camera, panel.css) show at once, not after the first clock reading. */
  if (app.dataset.camera === "1") document.documentElement.dataset.camera = "1";
  let state = null;
  GT.SIDE = SIDE;
  GT.SEATS = SEATS;
  GT.VOIDABLE = VOIDABLE;
  GT.nextSeat = function (seat) {
    const i = PLAY_ORDER.indexOf(seat);
    return i < 0 ? null : PLAY_ORDER[(i + 1) % 4];
  };
  /* The level a penalty of `level` amounts to on `side`'s ladder now (engine/ladder.py escalate,
     steps from the round's ruleset): what the toast names and whether a foul's leader is needed. */
  GT.escalate = function (side, level) {
    const lad = (state && state.penalties && state.penalties[side]) || {};
    const rs = (state && state.round && state.round.ruleset) || {};
    let w = lad.warnings || 0, v = lad.violations || 0, f = lad.fouls || 0;
    if (level === "warning") { w += 1; if (w < (rs.warnings_per_violation || 2)) return "warning"; level = "violation"; }
    if (level === "violation") { v += 1; if (v < (rs.violations_per_foul || 2)) return "violation"; level = "foul"; }
    if (level === "foul") { f += 1; return f < (rs.fouls_per_loss || 2) ? "foul" : "loss"; }
    return "loss";
  };
  /* "警告", or "警告 → 违例" where the ladder escalates it. */
  GT.penaltyName = function (side, level) {
    const fin = side ? GT.escalate(side, level) : level;
    return GT.t(level) + (fin !== level ? " → " + GT.t(fin) : "");
  };
  /* A foul needs the next deal's leader while a deal is on or between two deals (engine/penalties.py
     give_penalty); before the first deal the engine refuses one. */
  GT.foulNeedsLeader = function () {
    const deal = state && state.deal;
    const inDeal = !!deal && deal.phase !== "over";
    return inDeal || (!!state && !!state.next_deal);
  };
  GT.hooks = GT.hooks || [];
  GT.state = function () { return state; };
  /* table.js hands each state of the stream here before it draws it. */
  GT.setState = function (st) { state = st; };
  /* A renderer of the other panel scripts (panel_actions.js: the next-step box), run on every
     state from now on, and at once on the state already shown. The stream starts in table.js,
     before the page's later scripts have loaded, and its first state (the snapshot) may be handled
     while the browser still waits for them: on a quiet table no other state follows, so a renderer
     that only waited for the next one would never draw. */
  GT.addHook = function () {
    const fns = Array.prototype.slice.call(arguments);
    fns.forEach(function (fn) {
      GT.hooks.push(fn);
      if (state) { try { fn(state); } catch (e) { console.error(e); } }
    });
  };

  /* Replaces the contents of the box `id` (if the page has it) with `node`. */
  GT.fill = function (id, node) {
    const box = document.getElementById(id);
    if (!box) return;
    box.replaceChildren();
    if (node) box.appendChild(node);
  };

  /* --- camera pictures and event details (one fetch per event, kept) */
  const detailCache = {};
  GT.eventDetail = function (seq) {
    if (!detailCache[seq]) {
      detailCache[seq] = fetch(app.dataset.events + "?after=" + (seq - 1) + "&limit=1", { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : { events: [] }; })
        .then(function (j) { const ev = (j.events || [])[0]; return ev && ev.seq === seq ? ev : null; })
        .catch(function () { delete detailCache[seq]; return null; });
    }
    return detailCache[seq];
  };

  /* One engine event; the toast names what was done ("已提交 警告 #26") when `label` says it.
     Each tap is one action with its own id: a repost of it (the engine still busy after 5 s: 202
     pending) gets the first one's verdict and is never a second action. The same action tapped
     again while the first is on its way is the first (a double tap does it once); tapped again after
     its outcome stayed unknown (still pending, or the network down) it is sent with the first one's
     id, so the table answers with what it did. A play or pass entered for a player says whose turn
     the page showed, and an answer to a camera question which question: the table refuses it (409)
     when it has moved on (a second referee was first), web/expect.py. */
  function newActionId() {
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 12);
  }
  const inflight = {};
  /* key -> {id, at}: an action whose outcome stayed unknown, re-sent under its id if tapped again soon
     (a minute: a later identical tap, a pass when the turn comes round again, is a new action). */
  const unknownIds = {};
  const UNKNOWN_KEPT_MS = 60000;
  const TURN_ENTRIES = { cards_played: true, passed: true };
  function act(type, data, label, opts) {
    const expect = Object.assign({}, (opts && opts.expect) || {});
    if (TURN_ENTRIES[type] && !("turn" in expect)) {
      const deal = state && state.deal;
      expect.turn = deal && deal.phase !== "over" ? (deal.turn || null) : null;
    }
    const key = JSON.stringify([type, data, expect]);
    if (inflight[key]) return inflight[key];
    const p = send(type, data, label, expect, key).finally(function () { delete inflight[key]; });
    inflight[key] = p;
    return p;
  }
  async function send(type, data, label, expect, key) {
    const kept = unknownIds[key] && Date.now() - unknownIds[key].at < UNKNOWN_KEPT_MS ? unknownIds[key].id : null;
    const body = { type: type, data: data, action_id: kept || newActionId() };
    if (Object.keys(expect).length) body.expect = expect;
    let r;
    try {
      r = await GT.post(ACTIONS, body);
      for (let i = 0; i < 6 && r.status === 202 && r.json && r.json.pending; i++) {
        GT.toast(GT.refusal(r.json.error), false);  // still queued: ask again for the same action's verdict
        r = await GT.post(ACTIONS, body);
      }
    } catch (e) {
      unknownIds[key] = { id: body.action_id, at: Date.now() };  // it may have reached the table: the next tap asks for its verdict
      GT.toast(GT.t("network_down"), false);
      return { status: 0, ok: false, json: { accepted: false, error: String(e) } };
    }
    if (r.status === 202) {
      unknownIds[key] = { id: body.action_id, at: Date.now() };
      // The table's text says the outcome is not known yet (and what to do): said once, the view's half.
      GT.toast(r.json && r.json.error ? GT.refusal(r.json.error) : GT.t("outcome_unknown"), false);
      return r;
    }
    delete unknownIds[key];
    if (r.ok && r.json.accepted && kept && state && state.last_seq >= r.json.seq) {
      GT.toast(GT.t("already_done") + " #" + r.json.seq, true);  // the earlier tap had been done
    } else if (r.ok && r.json.accepted) GT.toast(GT.t("done") + (label ? " " + label : "") + " #" + r.json.seq, true);
    else if (r.status === 409) GT.toast(GT.t("not_done") + GT.colon() + GT.refusal(r.json.error), false);
    else if (r.status === 401) GT.loginEnded();
    else GT.toast(GT.t("rejected") + GT.colon() + GT.refusal((r.json && r.json.error) || GT.both("http_error", { n: r.status })), false);
    return r;
  }
  GT.act = act;

  /* --- who a refusal names. The engine's texts name seats and sides by their ids ("seat E is not on
     side NS", "payers: S N", "['S', 'N']"), the hub's name teams by theirs ("T09 4:2 T27"): what the
     panel shows names them (the s36 tap audit), from the round's players and the teams' names the
     hub's assignment gave (assignment.js keeps it in GT.assignment). The table's log keeps the
     engine's own words; only the page says them otherwise. */
  /* A side's team by name in the round shown (common.js GT.teamOf), else "". */
  GT.teamName = function (side) { return GT.teamOf(state, side); };
  function seatNamed(seat) {
    const players = state && state.round && state.round.players;
    return GT.seat(seat) + (players && players[seat] ? " " + players[seat] : "");
  }
  /* A seat as the referee's boxes say it: with its player where the round names one ("东 E 张伟"; the
     s36 tap audit found the next-step box, flag and question heads saying "东 E" alone). */
  GT.who = seatNamed;
  function sideNamed(side) {
    const team = GT.teamName(side);
    return GT.t("side_" + side) + (team ? " " + team : "");
  }
  /* In a Chinese half: "东（张伟）", "南北（常州队）"; the bare word without a name. */
  function zhNamed(id) {
    const players = state && state.round && state.round.players;
    const name = id.length === 2 ? GT.teamName(id) : (players && players[id]) || "";
    return GT.t((id.length === 2 ? "side_" : "seat_") + id) + (name ? "（" + name + "）" : "");
  }
  const CJK = /[\u3400-\u9fff\uff08-\uff1f\u3001\u3002]/;
  /* A Chinese half names seats and sides by their ids too ("E 已出完", "['S', 'N']", "东 E"): each said
     as zhNamed, the space an id needed beside Chinese dropped. A half naming all four seats is a list of
     the ids themselves ("应为 E、S、W 或 N"), left as it is. */
  function namedZh(s) {
    s = s.replace(/\[((?:'[ESWN]'(?:, )?)+)\]/g, function (m, inner) {
      return "[" + inner.match(/[ESWN]/g).map(zhNamed).join("、") + "]";
    });
    const ID = /(^|[^A-Za-z0-9_'\-])( ?)(?:(东西|南北|东|南|西|北) )?(NS|EW|[ESWN])(?![A-Za-z0-9_'\-])( (?=[\u3400-\u9fff]))?/g;
    const seen = {};
    s.replace(ID, function (m, b, sp, word, id) { seen[id] = 1; return m; });
    const list = seen.E && seen.S && seen.W && seen.N;
    return s.replace(ID, function (m, before, space, word, id) {
      if (list && id.length === 1) return m;
      const said = zhNamed(id);
      const keep = word && said.indexOf(word) !== 0 ? word + " " : "";  // a word that is not this id's stays
      return before + (space && !CJK.test(before) ? space : "") + keep + said;
    });
  }
  function reEscape(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }
  GT.named = function (text) {
    let s = String(text === null || text === undefined ? "" : text);
    const a = GT.assignment;
    if (a && a.teams && a.team_names) {
      ["NS", "EW"].forEach(function (side) {
        const id = a.teams[side], name = a.team_names[side];
        if (!id || !name || id === name) return;
        s = s.replace(new RegExp("(^|[^\\w-])" + reEscape(String(id)) + "(?![\\w-])", "g"),
                      function (m, before) { return before + name; });
      });
    }
    if (window.LANG === "zh") return namedZh(s);
    s = s.replace(/\[((?:'[ESWN]'(?:, )?)+)\]/g, function (m, inner) {
      return "[" + inner.match(/[ESWN]/g).map(seatNamed).join(", ") + "]";
    });
    s = s.replace(/(payers: )([ESWN](?: [ESWN])*)(?=\))/g, function (m, head, list) {
      return head + list.split(" ").map(seatNamed).join(", ");
    });
    s = s.replace(/(\bseat |: )([ESWN])(?=[ ,.;)]|$)/g, function (m, head, seat) { return head + seatNamed(seat); });
    return s.replace(/(\bside |\bfor |: )(NS|EW)(?=[ ,.;)]|$)/g, function (m, head, side) { return head + sideNamed(side); });
  };
  /* An engine's or the hub's refusal as the panel says it (common.js GT.refusal): the view's half, its
     event in words, who by name (GT.named). */
  /* The forms' choices of a seat or a side say who that is ("东 E 张伟", "南北 常州队"), not "E" or
     "NS": a referee giving a penalty under time pressure picks the player, and a wrong seat is a
     wrong ruling. Each option keeps its value (set explicitly first: an <option>E</option> has its
     text for a value). The seats a form names outside a list (the drawing's card counts, the
     anti-tribute's check boxes: span.seat-named) are said the same way. Run on every state: the
     players come with the round. */
  const SEAT_CHOICES = /^(seat|next_leader|cut_card_holder)$/;
  function nameChoices() {
    document.querySelectorAll("form.action select").forEach(function (sel) {
      Array.prototype.forEach.call(sel.options, function (opt) {
        const v = opt.value;
        if (!opt.hasAttribute("value")) opt.setAttribute("value", v);
        let text = null;
        if (SEATS.indexOf(v) >= 0 && SEAT_CHOICES.test(sel.name)) text = seatNamed(v);
        else if ((v === "NS" || v === "EW") && sel.name === "side") text = sideNamed(v);
        if (text !== null && opt.textContent !== text) opt.textContent = text;
      });
    });
    document.querySelectorAll("form.action .seat-named[data-seat]").forEach(function (span) {
      const text = seatNamed(span.dataset.seat);
      if (span.textContent !== text) span.textContent = text;
    });
  }
  GT.nameChoices = nameChoices;  // assignment.js: the teams' names arrive with the hub's assignment
  GT.addHook(nameChoices);

  GT.splitCards = function (text) {
    return String(text || "").split(/[\s,，]+/).filter(Boolean);
  };
})();
