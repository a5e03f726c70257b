/* The live table view: renders the engine's referee view on every SSE update. Buttons post one
   engine event each to the API (GT.act); nothing here changes state by itself. The one-tap
   "next step" box and the forms live in panel_actions.js. */
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
    "reading_declared", "penalty_given"];
  const canRule = app.dataset.role !== "viewer";
  const isChief = app.dataset.chief === "1";
  /* The page knows from the server whether the table has a camera (panel.py has_camera): the
     camera's buttons (.needs-camera, panel.css) show at once, not after the first clock reading. */
  if (app.dataset.camera === "1") document.documentElement.dataset.camera = "1";
  let state = null;
  const el = GT.el;
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
  /* A renderer of the other panel scripts (panel_actions.js: the next-step box), run on every
     state from now on, and at once on the state already shown. The stream starts here, before the
     page's later scripts have loaded, and its first state (the snapshot) may be handled while the
     browser still waits for them: on a quiet table no other state follows, so a renderer that only
     waited for the next one would never draw. */
  GT.addHook = function () {
    const fns = Array.prototype.slice.call(arguments);
    fns.forEach(function (fn) {
      GT.hooks.push(fn);
      if (state) { try { fn(state); } catch (e) { console.error(e); } }
    });
  };

  function fill(id, node) {
    const box = document.getElementById(id);
    if (!box) return;
    box.replaceChildren();
    if (node) box.appendChild(node);
  }

  /* The countdown as the engine has it: deadline_ms minus the table clock now (GT.tableNow reads
     the server's clock), in tenths: the number a referee rules on. */
  function timerText(deal, seat) {
    const left = GT.secondsLeft(deal.timers && deal.timers[seat], state);
    if (left === null) return null;
    if (left >= 0) return { text: left.toFixed(1) + " " + GT.t("seconds"), over: false, left: left };
    return { text: GT.t("overtime") + " +" + (-left).toFixed(1) + " " + GT.t("seconds"), over: true, left: left };
  }

  function reportChip(deal, seat) {
    const rep = deal.reports && deal.reports[seat];
    const on = rep !== undefined && rep !== null;
    let text = GT.t("report");
    if (on) {
      const count = typeof rep === "object" ? rep.count : rep;
      if (count !== undefined && count !== null) text += " · " + count;
    }
    const lamp = el("span", "lamp report " + (on ? "on" : "off"), text);
    lamp.dataset.on = on ? "1" : "0";
    if (on && typeof rep === "object" && rep.late) lamp.classList.add("late");
    return lamp;
  }

  function renderSeat(seat) {
    const deal = state.deal;
    const rnd = state.round || {};
    const box = el("div", "seat-inner");
    const head = el("div", "seat-head");
    head.appendChild(el("span", "seat-name", GT.seat(seat)));
    head.appendChild(el("span", "player", (rnd.players && rnd.players[seat]) || ""));
    head.appendChild(el("span", "side-tag", SIDE[seat]));
    box.appendChild(head);
    if (deal) {
      const info = el("div", "seat-info");
      const left = deal.counts ? deal.counts[seat] : null;
      const cl = el("span", "cards-left", GT.t("cards_left") + " " + (left === undefined || left === null ? "?" : left));
      cl.dataset.count = String(left);
      info.appendChild(cl);
      info.appendChild(reportChip(deal, seat));
      const pos = (deal.finish_order || []).indexOf(seat);
      if (pos >= 0) info.appendChild(el("span", "finished", "#" + (pos + 1)));
      box.appendChild(info);
      const timer = deal.timers && deal.timers[seat];
      if (deal.turn === seat || timer) {
        if (deal.turn === seat) box.classList.add("turn");
        const tt = timer ? timerText(deal, seat) : null;
        const node = el("div", "timer" + (tt && tt.over ? " over" : ""), tt ? tt.text : GT.t("turn"));
        node.id = "timer-" + seat;
        if (tt) node.dataset.left = tt.left.toFixed(2);
        box.appendChild(node);
      }
    }
    return box;
  }

  function playRow(p, level) {
    const row = el("div", "play" + (p.flagged ? " flagged" : "") + (canRule && p.seq ? " tappable" : ""));
    row.dataset.seq = p.seq;
    row.appendChild(el("span", "seq", "#" + p.seq));
    row.appendChild(el("span", "who", GT.seat(p.seat)));
    if (p.pass) row.appendChild(el("span", "pass", GT.t("pass")));
    else {
      row.appendChild(GT.cardsEl(p.cards, level));
      if (p.kind) row.appendChild(el("span", "kind", GT.kind(p.kind) + (p.rank ? " " + p.rank : "")));
    }
    if (canRule && p.seq) {
      row.tabIndex = 0;
      row.setAttribute("role", "button");
      row.onclick = function () { if (GT.openPlayDialog) GT.openPlayDialog(p); };
    }
    return row;
  }

  function renderTrick() {
    const deal = state.deal;
    const box = el("div");
    if (deal && deal.trick) (deal.trick.plays || []).forEach(function (p) { box.appendChild(playRow(p, deal.level)); });
    fill("trick-plays", box);
    const tp = document.getElementById("trick-plays");
    if (tp) tp.scrollTop = tp.scrollHeight;  // the newest play in view
  }

  /* --- undo: a row of the record (a tribute, a report card, a penalty, a ruling) voids its own
     event with one tap and a confirmation (panel_actions.js GT.openUndo: event_voided with the
     row's seq). Offered only where the engine allows it: a voidable type, of the current deal. */
  function inThisDeal(ev) {
    const deal = state && state.deal;
    return !!deal && typeof ev.t_ms === "number" && typeof deal.started_ms === "number" && ev.t_ms >= deal.started_ms;
  }
  function undoButton(seq, what, label) {
    const b = el("button", "undo", label || GT.t("undo"));
    b.type = "button";
    b.dataset.seq = String(seq);
    b.title = "#" + seq;
    b.onclick = function () { if (GT.openUndo) GT.openUndo(seq, what); };
    return b;
  }
  /* `type` known (a row of the deal itself): the button at once; unknown (a penalty record may
     come from penalty_given, a late arrival, a clock tick or a confirmed flag; a ruling's time
     decides whether it is of this deal): once the event is read. */
  function addUndo(host, seq, what, type, label) {
    if (!canRule || !seq) return;
    if (type) {
      if (VOIDABLE.indexOf(type) >= 0 && state.deal) host.appendChild(undoButton(seq, what, label));
      return;
    }
    GT.eventDetail(seq).then(function (ev) {
      if (ev && VOIDABLE.indexOf(ev.type) >= 0 && inThisDeal(ev) && host.isConnected && !host.querySelector("button.undo")) {
        // An automatic penalty comes from the flag's confirmation: undoing it undoes that ruling.
        const w = ev.type === "flag_confirmed" ? GT.tf("ruling_confirmed", { f: (ev.data && ev.data.flag) || "" }) + " · " + what : what;
        host.appendChild(undoButton(seq, w, label));
      }
    });
  }

  function tributeRow(label, t, level, type) {
    const r = el("div", "tribute-row", label + ": " + GT.seat(t.from) + " → " + GT.seat(t.to) + " ");
    r.dataset.seq = String(t.seq);
    r.appendChild(GT.cardsEl([t.card], level));
    r.appendChild(el("span", "seq muted small", " #" + t.seq + " "));
    addUndo(r, t.seq, label + " " + GT.seat(t.from) + " " + t.card, type);
    return r;
  }

  /* Redrawn only when they change: a clock tick must not replace an undo button under a finger. */
  let shownRecord = "";
  function renderDealLog() {
    const deal = state.deal;
    const box = el("div");
    if (deal) {
      (deal.tricks || []).concat(deal.trick && (deal.trick.plays || []).length ? [deal.trick] : []).forEach(function (t, i) {
        const tr = el("div", "trick-row");
        tr.appendChild(el("span", "trick-no", (i + 1) + "."));
        (t.plays || []).forEach(function (p) { tr.appendChild(playRow(p, deal.level)); });
        box.appendChild(tr);
      });
    }
    fill("deal-log", box);
    const key = JSON.stringify([window.LANG, deal && [deal.no, deal.started_ms, deal.level, deal.anti_tribute, deal.tributes,
      deal.returns, deal.reports], state.penalties]);
    if (key === shownRecord) return;
    shownRecord = key;
    const trib = el("div");
    if (deal) {
      if (deal.anti_tribute) {
        const a = el("div", "tribute-row", GT.t("anti_tribute") + ": " + (deal.anti_tribute.seats || []).map(GT.seat).join(", ") + " ");
        a.dataset.seq = String(deal.anti_tribute.seq);
        a.appendChild(GT.cardsEl(deal.anti_tribute.cards || [], deal.level));
        addUndo(a, deal.anti_tribute.seq, GT.t("anti_tribute"), "anti_tribute_declared");
        trib.appendChild(a);
      }
      (deal.tributes || []).forEach(function (t) { trib.appendChild(tributeRow(GT.t("tribute"), t, deal.level, "tribute_given")); });
      (deal.returns || []).forEach(function (t) { trib.appendChild(tributeRow(GT.t("return"), t, deal.level, "return_given")); });
    }
    fill("tribute", trib);
    renderReports();
    renderPenalties();
  }

  /* The report cards pressed this deal (the seats' chips show them; here each can be undone). */
  function renderReports() {
    const deal = state.deal;
    const reps = (deal && deal.reports) || {};
    const box = el("div");
    SEATS.forEach(function (seat) {
      const rep = reps[seat];
      if (!rep || typeof rep !== "object") return;
      const row = el("div", "report-row", GT.t("report") + ": " + GT.seat(seat) +
        (rep.count !== undefined && rep.count !== null ? " · " + rep.count : "") + " ");
      row.dataset.seq = String(rep.seq);
      row.appendChild(el("span", "seq muted small", "#" + rep.seq + " "));
      addUndo(row, rep.seq, GT.t("report") + " " + GT.seat(seat), "report_pressed");
      box.appendChild(row);
    });
    const host = document.getElementById("reports-box");
    if (host) host.hidden = !box.children.length;
    fill("reports", box);
  }

  function renderPenalties() {
    const pen = el("div", "ladders");
    const p = state.penalties || {};
    ["EW", "NS"].forEach(function (side) {
      const l = p[side] || {};
      const row = el("div", "ladder");
      row.dataset.side = side;
      row.appendChild(el("strong", "", side));
      [["warnings", "warning"], ["violations", "violation"], ["fouls", "foul"]].forEach(function (k) {
        const n = l[k[0]] || 0;
        const chip = el("span", "rung rung-" + k[1] + (n ? " on" : ""), GT.t(k[1]) + " " + n);
        chip.dataset.level = k[1];
        chip.dataset.n = String(n);
        row.appendChild(chip);
      });
      pen.appendChild(row);
    });
    (p.records || []).forEach(function (r) {
      const name = (r.given && r.given !== r.level ? GT.t(r.given) + " → " : "") + GT.t(r.level);
      const row = el("div", "penalty-row penalty-" + r.level,
        side_(r) + " · " + name +
        " · " + GT.bi(r.article || "") + (r.deal ? " · " + GT.tf("deal_no", { n: r.deal }) : "") + (r.auto ? " · " + GT.t("auto") : "") + " ");
      row.dataset.seq = String(r.seq);
      row.appendChild(el("span", "seq muted small", "#" + r.seq + " "));
      if (!r.withdrawn) addUndo(row, r.seq, GT.t("penalty") + " " + name + " · " + side_(r));
      pen.appendChild(row);
    });
    fill("penalties", pen);
  }
  function side_(r) { return (r.side || "") + (r.seat ? " " + GT.seat(r.seat) : ""); }

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

  /* The camera picture of event seq, if it carried one (an image that fails removes itself). */
  function cropEl(seq) {
    const img = el("img", "crop");
    img.loading = "lazy";
    img.alt = "#" + seq;
    img.onerror = function () { img.remove(); };
    img.src = app.dataset.events + "/" + seq + "/crop";
    return img;
  }

  /* --- flag evidence, readable: times as clock times and seconds, seats by name, cards as cards */
  const CARD_KEYS = { cards: 1, top: 1, card: 1, tribute: 1, proof_card: 1, held: 1, cards_declared: 1 };
  const SEAT_KEYS = { turn: 1, next_actor: 1, to: 1, seat: 1, payers: 1, declared_by: 1 };
  const SEQ_KEYS = { play_seq: 1, tribute_seq: 1, proof_seq: 1, first_seq: 1, earlier: 1, top_seq: 1, declared_seq: 1, tribute_seqs: 1 };
  const PENALTY_KEYS = { would_be: 1, given: 1 };
  function seqLink(n) {
    const a = el("a", "seq-link", "#" + n);
    a.href = "#";
    a.onclick = function (e) {
      e.preventDefault();
      const row = document.querySelector('#deal-log .play[data-seq="' + n + '"]');
      if (row) { row.scrollIntoView({ block: "center" }); row.classList.add("blink"); setTimeout(function () { row.classList.remove("blink"); }, 2000); }
    };
    return a;
  }
  function evidenceValue(k, v) {
    const level = state.deal && state.deal.level;
    if (CARD_KEYS[k]) {
      const cards = Array.isArray(v) ? v : (v && typeof v === "object" && v.cards) ? v.cards : [v];
      return GT.cardsEl(cards, level);
    }
    if (SEAT_KEYS[k] && typeof v === "string") return el("span", "", GT.seat(v));
    if (SEAT_KEYS[k] && Array.isArray(v)) return el("span", "", v.map(GT.seat).join(", "));
    if (PENALTY_KEYS[k] && typeof v === "string") return el("span", "", window.I18N[v] ? GT.t(v) : v);
    if (SEQ_KEYS[k]) {
      const box = el("span");
      (Array.isArray(v) ? v : [v]).forEach(function (n, i) { if (i) box.appendChild(document.createTextNode(", ")); box.appendChild(seqLink(n)); });
      return box;
    }
    if (k === "deadline_ms") return el("span", "", GT.clockTime(v));
    if (k === "overtime_ms") return el("span", "", "+" + GT.secs(v));
    if (k === "seconds") return el("span", "", Number(v).toFixed(1) + " " + GT.t("seconds"));
    if (k === "phase") return el("span", "", window.I18N["phase_" + v] ? GT.t("phase_" + v) : GT.w(v));
    if (k === "source") return el("span", "", window.I18N["src_" + v] ? GT.t("src_" + v) : String(v));
    if (k === "position_mm" && Array.isArray(v)) return el("span", "", v.map(function (x) { return Math.round(x); }).join(", ") + " mm");
    if (k === "trick") return el("span", "", String(v));
    if (typeof v === "boolean") return el("span", "", GT.t(v ? "yes" : "no"));
    if (v && typeof v === "object" && !Array.isArray(v)) {
      return el("span", "", Object.keys(v).map(function (s) { return (SIDE[s] ? GT.seat(s) : s) + " " + v[s]; }).join(" · "));
    }
    return el("span", "", GT.bi(Array.isArray(v) ? v.join(", ") : v));
  }

  function evidenceEl(f) {
    const box = el("div", "evidence");
    const ev = f.evidence;
    if (f.seq) box.appendChild(cropEl(f.seq));
    if (!ev) return box;
    const dl = el("dl");
    Object.keys(ev).forEach(function (k) {
      const v = ev[k];
      if (typeof v === "string" && v.indexOf("data:image/") === 0) {
        const img = el("img", "crop");
        img.src = v; img.alt = k;
        box.appendChild(img);
        return;
      }
      // A penalty_escalation's "level" is the penalty given, not the level card.
      const key = f.rule === "penalty_escalation" && k === "level" ? "given" : k;
      dl.appendChild(el("dt", "ev-" + k, window.I18N["ev_" + key] ? GT.t("ev_" + key) : k));
      const dd = el("dd", "ev-" + k);
      dd.appendChild(evidenceValue(key, v));
      dl.appendChild(dd);
    });
    box.appendChild(dl);
    return box;
  }

  /* One engine event; the toast names what was done ("已提交 警告 #26") when `label` says it. */
  /* Each tap is one action with its own id: a repost of it (the engine still busy after 5 s:
     202 pending) gets the first one's verdict and is never a second action. */
  function newActionId() {
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 12);
  }
  async function act(type, data, label) {
    const body = { type: type, data: data, action_id: newActionId() };
    let r = await GT.post(ACTIONS, body);
    for (let i = 0; i < 6 && r.status === 202 && r.json && r.json.pending; i++) {
      GT.toast(GT.bi(r.json.error), false);  // still queued: ask again for the same action's verdict
      r = await GT.post(ACTIONS, body);
    }
    if (r.ok && r.json.accepted) GT.toast(GT.t("done") + (label ? " " + label : "") + " #" + r.json.seq, true);
    else GT.toast(GT.t("rejected") + ": " + GT.bi((r.json && r.json.error) || String(r.status)), false);
    return r;
  }
  GT.act = act;

  /* One-tap penalty for a flag: the engine applies the ladder (a 2nd warning is a violation). */
  function penaltyFor(f, level) {
    const side = f.seat ? SIDE[f.seat] : (f.evidence && f.evidence.side) || null;
    const data = { level: level, side: side, article: GT.bi(f.article) || f.rule, flag: f.id };
    if (f.seat) data.seat = f.seat;
    // A tap the ladder turns into a foul (the chief's) names the next leader: the offender's 下家.
    if (f.seat && side && GT.escalate(side, level) === "foul" && GT.foulNeedsLeader()) data.next_leader = GT.nextSeat(f.seat);
    return data;
  }

  /* Flags whose penalty is on its way: id -> true while the request runs, then the seq it got
     until a state that has it is shown. Their penalty buttons stay disabled meanwhile, across
     redraws, so a second tap cannot give (and escalate) a second penalty. */
  const pendingPenalty = {};
  function setBusy(bar, on) { bar.querySelectorAll("button").forEach(function (b) { b.disabled = on; }); }
  /* Every flag button: disabled while its request runs (a double tap posts once). */
  function flagAct(bar, type, data, label, flagId) {
    if (bar.dataset.busy === "1") return Promise.resolve(null);
    bar.dataset.busy = "1";
    setBusy(bar, true);
    if (flagId) pendingPenalty[flagId] = true;
    function failed() {
      delete bar.dataset.busy;
      setBusy(bar, false);
      if (flagId) {
        delete pendingPenalty[flagId];
        // The card may have been redrawn (disabled) meanwhile: draw it again, usable.
        shownFlags = "";
        if (state) renderFlags();
      }
    }
    return act(type, data, label).then(function (r) {
      if (r.ok && r.json.accepted) {
        // Redrawn from the state that has it; until then the buttons stay disabled.
        if (!flagId) { delete bar.dataset.busy; setBusy(bar, false); }
        else if (state && state.last_seq >= r.json.seq) { delete pendingPenalty[flagId]; shownFlags = ""; renderFlags(); }
        else pendingPenalty[flagId] = r.json.seq;
      } else failed();
      return r;
    }, function (e) { failed(); throw e; });
  }

  /* A camera call about a tribute or return card it doubted: one tap enters the card as the camera
     read it (the referee has the picture beside it) and closes the call; another card is picked in
     the next step's box. Only while that card is still due. */
  function asReadButton(f) {
    const card = f.rule === "referee_call" && f.evidence && f.evidence.card;
    const deal = state && state.deal;
    if (!card || !f.seat || !deal || f.deal !== deal.no) return null;
    let type = null;
    if (deal.phase === "tribute") {
      const due = ((deal.tribute_plan || {}).payers || []).indexOf(f.seat) >= 0 &&
        !(deal.tributes || []).some(function (t) { return t.from === f.seat; });
      if (due) type = "tribute_given";
    } else if (deal.phase === "return") {
      const due = (deal.tributes || []).some(function (t) { return t.to === f.seat; }) &&
        !(deal.returns || []).some(function (r) { return r.from === f.seat; });
      if (due) type = "return_given";
    }
    if (!type) return null;
    const b = el("button", "confirm as-read", GT.tf("enter_as_read", { c: card }));
    b.onclick = async function () {
      const r = await act(type, { seat: f.seat, card: card });
      if (r.ok && r.json.accepted) act("flag_dismissed", { flag: f.id, note: window.I18N.entered_as_read.join(" / ") });
    };
    return b;
  }

  function flagCard(f) {
    const card = el("div", "flag " + f.status);
    card.id = "flag-" + f.id;
    card.dataset.status = f.status;
    const head = el("div", "flag-head");
    head.appendChild(el("span", "flag-id", f.id));
    head.appendChild(el("span", "flag-seat", GT.seat(f.seat)));
    head.appendChild(el("span", "flag-time", GT.clockTime(f.t_ms)));
    head.appendChild(el("span", "flag-status", GT.w(f.status)));
    card.appendChild(head);
    card.appendChild(el("div", "flag-rule", GT.t("rule") + ": " + GT.rule(f)));
    if (f.status === "open") card.appendChild(evidenceEl(f));
    const given = ((state.penalties && state.penalties.records) || []).filter(function (r) { return r.flag === f.id; });
    given.forEach(function (r) {
      const name = (r.given && r.given !== r.level ? GT.t(r.given) + " → " : "") + GT.t(r.level);
      const line = el("div", "flag-penalty penalty-" + r.level + (r.withdrawn ? " withdrawn" : ""),
        GT.t("penalty") + ": " + name + (r.withdrawn ? " (" + GT.w("withdrawn") + ")" : "") + " ");
      line.dataset.seq = String(r.seq);
      line.appendChild(el("span", "seq muted small", "#" + r.seq + " "));
      if (!r.withdrawn) addUndo(line, r.seq, GT.t("penalty") + " " + name + " · " + side_(r));
      card.appendChild(line);
    });
    // The referee's ruling on it (confirm / dismiss) can be undone while it is of this deal.
    if ((f.status === "confirmed" || f.status === "dismissed") && f.closed_seq) {
      const ruling = el("div", "flag-ruling");
      addUndo(ruling, f.closed_seq, GT.tf(f.status === "confirmed" ? "ruling_confirmed" : "ruling_dismissed", { f: f.id }),
        null, GT.t("undo_ruling") + " #" + f.closed_seq);
      card.appendChild(ruling);
    }
    // One penalty a flag: once one cites it (state.penalties.records[].flag), its buttons go and
    // the penalty given shows instead (above).
    const mayPenalise = !given.some(function (r) { return !r.withdrawn; }) && (f.status === "open" || f.status === "confirmed");
    if (canRule && (f.status === "open" || mayPenalise)) {
      const bar = el("div", "buttons");
      if (f.status === "open") {
        const b1 = el("button", "confirm", GT.t("confirm"));
        b1.onclick = function () { flagAct(bar, "flag_confirmed", { flag: f.id }, GT.t("confirm") + " " + f.id); };
        const b2 = el("button", "dismiss", GT.t("dismiss"));
        b2.onclick = function () { flagAct(bar, "flag_dismissed", { flag: f.id }, GT.t("dismiss") + " " + f.id); };
        bar.appendChild(b1); bar.appendChild(b2);
        const asRead = asReadButton(f);
        if (asRead) bar.insertBefore(asRead, b1);
      }
      if (mayPenalise) {
        const side = f.seat ? SIDE[f.seat] : null;
        if (side) {
          const w = el("button", "pen-warning", GT.t("give_warning"));
          w.onclick = function () { flagAct(bar, "penalty_given", penaltyFor(f, "warning"), GT.penaltyName(side, "warning"), f.id); };
          const v = el("button", "pen-violation", GT.t("give_violation"));
          v.onclick = function () { flagAct(bar, "penalty_given", penaltyFor(f, "violation"), GT.penaltyName(side, "violation"), f.id); };
          bar.appendChild(w); bar.appendChild(v);
        }
        const b3 = el("button", "to-penalty", isChief ? GT.t("give_foul") : GT.t("penalty") + "…");
        b3.onclick = function () { prefillPenalty(f); };
        bar.appendChild(b3);
      }
      if (pendingPenalty[f.id]) { bar.dataset.busy = "1"; setBusy(bar, true); }  // its penalty is on its way
      card.appendChild(bar);
    }
    return card;
  }

  /* Flags grouped by deal, this deal first; older deals fold away unless a flag there is open.
     Redrawn only when they change, so a button is never replaced under the referee's finger. */
  let shownFlags = "";
  function renderFlags() {
    const records = (state.penalties && state.penalties.records) || [];
    Object.keys(pendingPenalty).forEach(function (id) {
      const seq = pendingPenalty[id];
      if (typeof seq === "number" && state.last_seq >= seq) delete pendingPenalty[id];
    });
    const key = JSON.stringify([window.LANG, state.deal && [state.deal.no, state.deal.started_ms], state.flags || [],
      records.map(function (r) { return [r.seq, r.flag, r.level, r.withdrawn]; }), Object.keys(pendingPenalty)]);
    if (key === shownFlags) return;
    shownFlags = key;
    const box = el("div");
    const flags = (state.flags || []).slice().reverse();
    const open = flags.filter(function (f) { return f.status === "open"; });
    if (!open.length) box.appendChild(el("p", "muted", GT.t("no_flags")));
    const current = state.deal ? state.deal.no : null;
    const groups = [];
    const byDeal = {};
    flags.forEach(function (f) {
      const key = f.deal === null || f.deal === undefined ? "none" : String(f.deal);
      if (!byDeal[key]) { byDeal[key] = []; groups.push(key); }
      byDeal[key].push(f);
    });
    groups.sort(function (a, b) {
      if (a === String(current)) return -1;
      if (b === String(current)) return 1;
      return (b === "none" ? -1 : Number(b)) - (a === "none" ? -1 : Number(a));
    });
    groups.forEach(function (key) {
      const list = byDeal[key];
      const nOpen = list.filter(function (f) { return f.status === "open"; }).length;
      const grp = el("details", "flag-group");
      grp.dataset.deal = key;
      grp.open = key === String(current) || nOpen > 0;
      const title = key === "none" ? GT.t("between_deals") : GT.tf("deal_no", { n: key });
      grp.appendChild(el("summary", "", title + " · " + list.length + (nOpen ? " · " + GT.w("open") + " " + nOpen : "")));
      list.forEach(function (f) { grp.appendChild(flagCard(f)); });
      box.appendChild(grp);
    });
    fill("flags", box);
  }

  /* The penalty form filled from the flag: side, seat, rule, and for the chief a foul with the
     next deal's leader (the offender's 下家, panel_actions.js GT.updateNextLeader): one tap to give. */
  function prefillPenalty(f) {
    const form = document.getElementById("f-penalty");
    if (!form) return;
    form.elements.flag.value = f.id;
    if (f.seat) { form.elements.seat.value = f.seat; form.elements.side.value = SIDE[f.seat]; }
    form.elements.article.value = GT.bi(f.article) || f.rule;
    if (isChief) form.elements.level.value = "foul";
    if (GT.updateNextLeader) GT.updateNextLeader(form);
    form.scrollIntoView({ block: "start" });
  }

  /* --- camera questions: the picture, why the reader doubts, the likely readings as buttons */
  function sameCards(a, b) { return a.length === b.length && a.every(function (c, i) { return c === b[i]; }); }

  function answer(q, cards) {
    if (sameCards(cards, q.cards || [])) return act("play_confirmed", { ref: q.seq });
    return act("play_corrected", { ref: q.seq, cards: cards });
  }

  function questionCard(q) {
    const level = state.deal.level;
    const card = el("div", "question");
    card.id = "question-" + q.seq;
    card.appendChild(el("div", "q-head", "#" + q.seq + " · " + GT.seat(q.seat) + " · " + GT.clockTime(q.t_ms)));
    const pic = el("div", "q-picture");
    card.appendChild(pic);
    const read = el("div", "q-read");
    const cards = GT.cardsEl(q.cards, level);
    (q.confidence || []).forEach(function (c, i) {
      if (cards.children[i]) { cards.children[i].title = Math.round(c * 100) + "%"; if (c < 0.8) cards.children[i].classList.add("doubt"); }
    });
    read.appendChild(cards);
    card.appendChild(read);
    const why = el("ul", "q-reasons");
    if (q.reason === "third_copy") why.appendChild(el("li", "", GT.t("rule_card_seen_third_time") + (q.beyond ? ": " + [].concat(q.beyond).join(" ") : "")));
    card.appendChild(why);
    const cands = el("div", "q-candidates");
    card.appendChild(cands);
    function candidateButton(cs, i) {
      const b = el("button", "candidate" + (i === 0 ? " confirm" : ""));
      b.dataset.cards = cs.join(" ");
      b.appendChild(GT.cardsEl(cs, level));
      if (i === 0) b.appendChild(el("span", "tag", "✓ " + GT.t("read_ok")));
      b.onclick = function () { answer(q, cs); };
      return b;
    }
    if (canRule) {
      cands.appendChild(el("div", "muted small", GT.t("candidates")));
      cands.appendChild(candidateButton(q.cards || [], 0));
      const other = el("div", "q-other");
      other.appendChild(el("span", "", GT.t("other_cards") + " "));
      const inp = el("input", "correct-cards");
      inp.placeholder = (q.cards || []).join(" ");
      const fix = el("button", "correct", GT.t("correct_to"));
      fix.onclick = function () { const cs = GT.splitCards(inp.value); if (cs.length) answer(q, cs); };
      other.appendChild(inp); other.appendChild(fix);
      card.appendChild(other);
    }
    GT.eventDetail(q.seq).then(function (ev) {
      const d = (ev && ev.data) || {};
      if (typeof d.crop === "string" && d.crop.indexOf("data:image/") === 0) {
        const img = el("img", "crop");
        img.src = d.crop; img.alt = "#" + q.seq;
        pic.replaceChildren(img);
      } else {
        pic.replaceChildren(el("div", "muted small no-picture", "—"));
      }
      (d.reasons || []).forEach(function (r) { why.appendChild(el("li", "", GT.bi(r))); });
      if (!why.children.length && (q.confidence || []).length) {
        why.appendChild(el("li", "", GT.t("doubt_reason") + ": " + (q.confidence || []).map(function (c) { return Math.round(c * 100) + "%"; }).join(" ")));
      }
      if (canRule) {
        (d.candidates || []).forEach(function (cs) {
          if (!sameCards(cs, q.cards || [])) cands.appendChild(candidateButton(cs, 1));
        });
      }
    });
    return card;
  }

  let shownQuestions = "";
  function renderQuestions() {
    const qs = (state.deal && state.deal.questions) || [];
    const key = qs.map(function (q) { return q.seq + ":" + (q.cards || []).join(","); }).join("|") + "|" + window.LANG;
    document.getElementById("questions-card").hidden = qs.length === 0;
    if (key === shownQuestions) return;  // keep what the referee is typing
    shownQuestions = key;
    const box = el("div");
    qs.forEach(function (q) { box.appendChild(questionCard(q)); });
    fill("questions", box);
  }

  /* --- the header: round, levels, the camera's health, devices. The camera's health comes with
     the clock reading (every 3 s): it changes without any event (lagging, not reading). */
  let cameraHealth = null;
  GT.onCamera = function (cam) { cameraHealth = cam; if (state) renderCamera(); };
  function renderCamera() {
    const box = document.getElementById("camera-health");
    if (!box) return;
    const dv = state.devices || {};
    const cam = cameraHealth || state.camera || (typeof dv.camera === "object" ? dv.camera : null);
    let kind, text;
    if (cam && typeof cam === "object") {
      kind = cam.state || "unknown";
      text = cam.text ? GT.bi(cam.text) : GT.t("camera_state") + " · " + GT.t("cam_" + kind);
      if (kind === "lagging" && typeof cam.lag_s === "number" && !cam.text) text += " " + cam.lag_s.toFixed(1) + " " + GT.t("seconds");
    } else {
      kind = dv.camera === "online" ? "reading" : dv.camera === "offline" ? "offline" : "unknown";
      text = GT.t("camera_state") + " · " + GT.w(dv.camera || "unknown");
    }
    box.className = "cam cam-" + kind;
    box.dataset.state = kind;
    box.textContent = text;
    /* Which deck the camera reads with (enrolled, or learning it): after a restart or the hub's
       deck the referee sees it here, and the fan check's verdict on a tap (title). */
    const deck = cam && typeof cam === "object" ? cam.deck : null;
    /* The chief's link to the deck file this table reads with (enrolled here, the hub's, or the
       config's), to upload at the hub's 比赛用牌 for every table. */
    const deckFile = document.getElementById("deck-file");
    if (deckFile) deckFile.hidden = !(deck && deck.enrolled);
    const deckBox = document.getElementById("camera-deck");
    if (!deckBox) return;
    deckBox.hidden = !deck;
    if (!deck) return;
    deckBox.className = "cam-deck" + (deck.warn ? " warn" : deck.enrolled ? " enrolled" : "");
    deckBox.textContent = GT.bi(deck.text || "");
    deckBox.title = deck.check ? GT.bi(deck.check) : "";
    deckBox.onclick = deck.check ? function () { window.alert(GT.bi(deck.check)); } : null;
  }

  /* The status bar's "待处理 N · 问题 M": on a phone the flags and questions are screens below; a
     tap brings the questions (or, with none, the flags) into view. */
  function renderBadge() {
    const badge = document.getElementById("pending-badge");
    if (!badge) return;
    const nOpen = (state.flags || []).filter(function (f) { return f.status === "open"; }).length;
    const nQ = ((state.deal && state.deal.questions) || []).length;
    badge.hidden = false;
    badge.textContent = GT.tf("pending_badge", { n: nOpen, m: nQ });
    badge.dataset.open = String(nOpen);
    badge.dataset.questions = String(nQ);
    badge.classList.toggle("hot", nOpen + nQ > 0);
  }
  GT.showPending = function () {
    const nQ = ((state && state.deal && state.deal.questions) || []).length;
    const target = document.getElementById(nQ ? "questions-card" : "flags-card");
    if (!target) return;
    target.scrollIntoView({ block: "start" });
    target.classList.add("blink");
    setTimeout(function () { target.classList.remove("blink"); }, 1500);
  };
  const badgeEl = document.getElementById("pending-badge");
  if (badgeEl) badgeEl.onclick = GT.showPending;

  function renderHeader() {
    renderBadge();
    const rnd = state.round;
    const deal = state.deal;
    const parts = [];
    if (rnd) parts.push(GT.t("round") + " " + rnd.no + " · " + GT.w(rnd.status));
    if (deal) parts.push(GT.t("deal") + " " + deal.no + " · " + GT.w(deal.phase));
    document.getElementById("round-info").textContent = parts.join(" | ");
    const lv = state.levels || {};
    document.getElementById("levels").textContent = GT.t("levels") + ": EW " + (lv.EW || "—") + " · NS " + (lv.NS || "—");
    const lc = document.getElementById("level-card");
    lc.replaceChildren();
    if (deal && deal.level) {
      lc.appendChild(el("span", "", GT.t("level_card") + " " + deal.level + (deal.level_side ? " (" + deal.level_side + ") " : " ")));
      lc.appendChild(GT.cardEl(deal.level + "h", deal.level));
      lc.appendChild(el("span", "muted", " " + GT.t("wild")));
    }
    renderCamera();
    const dv = state.devices || {};
    document.getElementById("devices").textContent = GT.t("devices") + ": " +
      Object.keys(dv).filter(function (k) { return typeof dv[k] !== "object"; })
        .map(function (k) { return GT.w(k) + " " + GT.w(dv[k]); }).join(" · ");
  }

  function render() {
    if (!state) return;
    renderHeader();
    SEATS.forEach(function (s) { fill("seat-" + s, renderSeat(s)); });
    renderTrick();
    renderDealLog();
    renderFlags();
    renderQuestions();
    GT.hooks.forEach(function (fn) { try { fn(state); } catch (e) { console.error(e); } });
  }
  GT.rerender = function () { shownQuestions = ""; shownFlags = ""; shownRecord = ""; render(); };

  function tickTimers() {
    if (!state || !state.deal || !state.deal.timers) return;
    Object.keys(state.deal.timers).forEach(function (seat) {
      const node = document.getElementById("timer-" + seat);
      const tt = timerText(state.deal, seat);
      if (node && tt) { node.textContent = tt.text; node.classList.toggle("over", tt.over); node.dataset.left = tt.left.toFixed(2); }
    });
  }
  setInterval(tickTimers, 100);
  GT.clockListeners.push(tickTimers);

  GT.splitCards = function (text) {
    return String(text || "").split(/[\s,，]+/).filter(Boolean);
  };

  GT.startClock(app.dataset.clock, 3000);
  GT.connect(app.dataset.stream, app, function (st) { state = st; render(); });
})();
