/* The deal's record below the table: every trick's plays, the tribute and return rows, the report
   cards pressed, the penalty ladders and records, each row with its undo button where the engine
   allows one. Apart from table.js (the live table: seats, trick, status bar) because it is the
   page's ledger, redrawn only when it changes; panel_flags.js shares its undo buttons and
   table.js its play rows (GT.addUndo, GT.playRow). Loaded after panel_state.js. */
(function () {
  "use strict";
  const el = GT.el;
  const fill = GT.fill;
  const SEATS = GT.SEATS;
  const VOIDABLE = GT.VOIDABLE;
  const canRule = GT.canRule;

  function playRow(p, level) {
    const row = el("div", "play" + (p.flagged ? " flagged" : "") + (canRule && p.seq ? " tappable" : ""));
    row.dataset.seq = p.seq;
    row.appendChild(el("span", "seq", "#" + p.seq));
    row.appendChild(el("span", "who", GT.seat(p.seat)));
    if (p.pass) row.appendChild(el("span", "pass", GT.t("pass")));
    else {
      row.appendChild(GT.cardsEl(p.cards, level));
      if (p.kind) row.appendChild(el("span", "kind", GT.kind(p.kind) + (p.rank ? " " + GT.rank(p.rank) : "")));
    }
    if (canRule && p.seq) {
      row.tabIndex = 0;
      row.setAttribute("role", "button");
      row.onclick = function () { if (GT.openPlayDialog) GT.openPlayDialog(p); };
    }
    return row;
  }

  /* --- undo: a row of the record (a tribute, a report card, a penalty, a ruling) voids its own
     event with one tap and a confirmation (panel_actions.js GT.openUndo: event_voided with the
     row's seq). Offered only where the engine allows it: a voidable type, of the current deal. */
  function inThisDeal(ev) {
    const state = GT.state();
    const deal = state && state.deal;
    if (!deal || typeof ev.seq !== "number") return false;
    // The engine's own bound (deal.first_seq: the drawing's event); times can tie or be dated back.
    if (typeof deal.first_seq === "number") return ev.seq >= deal.first_seq;
    return typeof ev.t_ms === "number" && typeof deal.started_ms === "number" && ev.t_ms >= deal.started_ms;
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
    const state = GT.state();
    if (!canRule || !seq) return;
    if (type && (GT.isChief || VOIDABLE.indexOf(type) < 0)) {
      if (VOIDABLE.indexOf(type) >= 0 && state.deal) host.appendChild(undoButton(seq, what, label));
      return;
    }
    // A referee's undo needs to know who entered the event (a tribute the chief entered is the chief's).
    GT.eventDetail(seq).then(function (ev) {
      // The chief's entries are undone by the chief alone (the engine refuses a referee).
      const mine = GT.isChief || ev && ev.role !== "chief";
      if (ev && mine && VOIDABLE.indexOf(ev.type) >= 0 && inThisDeal(ev) && host.isConnected && !host.querySelector("button.undo")) {
        // An automatic penalty comes from the flag's confirmation: undoing it undoes that ruling.
        const w = ev.type === "flag_confirmed" ? GT.tf("ruling_confirmed", { f: (ev.data && ev.data.flag) || "" }) + " · " + what : what;
        host.appendChild(undoButton(seq, w, label));
      }
    });
  }

  /* Whether a card of the deal is on the table: a play on the record or a camera read awaiting the
     referee (engine/tribute_correction.py first_card_played). */
  function firstCardPlayed(deal) {
    const tricks = (deal.tricks || []).concat(deal.trick ? [deal.trick] : []);
    const played = tricks.some(function (t) { return (t.plays || []).some(function (p) { return !p.pass; }); });
    return played || (deal.questions || []).length > 0;
  }
  /* From engine generation 8 a tribute or return is not voided once play has begun (the void undid
     every play since): its row has no undo then, and a tribute's row offers the correction instead. */
  function voidRefusedInPlay(deal) {
    const state = GT.state();
    return Number((state.round && state.round.engine) || 1) >= 8 && firstCardPlayed(deal);
  }

  function tributeRow(label, t, deal, type) {
    const r = el("div", "tribute-row", label + GT.colon() + GT.seat(t.from) + " → " + GT.seat(t.to) + " ");
    r.dataset.seq = String(t.seq);
    r.appendChild(GT.cardsEl([t.card], deal.level));
    if (t.corrected) {
      r.appendChild(el("span", "corrected muted small", " " + GT.tf("tribute_given_first", { c: GT.cardName(t.corrected.given) }) +
        " · #" + t.corrected.seq));
    }
    r.appendChild(el("span", "seq muted small", " #" + t.seq + " "));
    if (!voidRefusedInPlay(deal)) addUndo(r, t.seq, label + " " + GT.seat(t.from) + " " + GT.cardName(t.card), type);
    else if (canRule && deal.phase === "play" && GT.openTributeCorrection) {
      const own = type === "tribute_given";  // a return's row: its reading only
      const b = el("button", own ? "correct-tribute" : "correct-return", GT.t(own ? "correct_tribute" : "correct_reading"));
      b.type = "button";
      b.onclick = function () { GT.openTributeCorrection(t, !own); };
      r.appendChild(b);
    }
    return r;
  }

  /* Redrawn only when they change: a clock tick must not replace an undo button under a finger. */
  let shownRecord = "";
  function renderDealLog() {
    const state = GT.state();
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
      deal.returns, deal.reports, deal.phase, firstCardPlayed(deal)], state.penalties,
      // the sides and seats as the rows name them (the hub's team names may come after the state)
      GT.teamOf(state, "EW"), GT.teamOf(state, "NS"), state.round && state.round.players]);
    if (key === shownRecord) return;
    shownRecord = key;
    const trib = el("div");
    if (deal) {
      if (deal.anti_tribute) {
        const a = el("div", "tribute-row", GT.t("anti_tribute") + GT.colon() + (deal.anti_tribute.seats || []).map(GT.seat).join(", ") + " ");
        a.dataset.seq = String(deal.anti_tribute.seq);
        a.appendChild(GT.cardsEl(deal.anti_tribute.cards || [], deal.level));
        if (!voidRefusedInPlay(deal)) addUndo(a, deal.anti_tribute.seq, GT.t("anti_tribute"), "anti_tribute_declared");
        trib.appendChild(a);
      }
      (deal.tributes || []).forEach(function (t) { trib.appendChild(tributeRow(GT.t("tribute"), t, deal, "tribute_given")); });
      (deal.returns || []).forEach(function (t) { trib.appendChild(tributeRow(GT.t("return"), t, deal, "return_given")); });
    }
    fill("tribute", trib);
    renderReports();
    renderPenalties();
  }

  /* The report cards pressed this deal (the seats' chips show them; here each can be undone). */
  function renderReports() {
    const state = GT.state();
    const deal = state.deal;
    const reps = (deal && deal.reports) || {};
    const box = el("div");
    SEATS.forEach(function (seat) {
      const rep = reps[seat];
      if (!rep || typeof rep !== "object") return;
      const row = el("div", "report-row", GT.t("report") + GT.colon() + GT.seat(seat) +
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
    const state = GT.state();
    const pen = el("div", "ladders");
    const p = state.penalties || {};
    ["EW", "NS"].forEach(function (side) {
      const l = p[side] || {};
      const row = el("div", "ladder");
      row.dataset.side = side;
      // The side as the referee reads it: its team, else 东西 / 南北 (the ladder said "EW 警告 1").
      row.appendChild(el("strong", "")).appendChild(GT.sideLabelEl(state, side));
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
  /* A penalty's side and seat: "南京队 · 东 E 张伟" (the row and its undo said "EW 东 E"). */
  function side_(r) {
    const side = r.side ? GT.sideLabel(GT.state(), r.side) : "";
    return side + (r.seat ? (side ? " · " : "") + GT.who(r.seat) : "");
  }

  GT.firstCardPlayed = firstCardPlayed;
  GT.playRow = playRow;
  GT.addUndo = addUndo;
  GT.sideAndSeat = side_;
  /* Drawn by table.js on every state; forget() makes the next state redraw it (GT.rerender). */
  GT.recordCard = { render: renderDealLog, forget: function () { shownRecord = ""; } };
})();
