/* Broadcast overlay (OBS browser source): the public, delayed feed drawn as TV graphics on a
   1920×1080 stage scaled to the source. Seat plates (name, cards left, report mark, running
   clock), the score bug, the current trick (bounded: the last plays, newest emphasised),
   short-lived pop-ups for flags and rulings, and the "delayed N s" mark. ?lang=en for English,
   ?popup_s=N for how long a pop-up stays (default 8 s). */
(function () {
  "use strict";
  const root = document.getElementById("ov");
  const stage = document.getElementById("stage");
  const el = GT.el;
  const SEATS = ["E", "S", "W", "N"];
  const SIDE = { E: "EW", W: "EW", S: "NS", N: "NS" };
  const MAX_TRICK = 5;       // plays shown in the trick rail (older ones counted)
  const MAX_POPS = 3;
  const params = new URLSearchParams(location.search);
  const POP_MS = Math.max(0.5, Number(params.get("popup_s")) || 8) * 1000;
  let state = null;
  let first = true;
  const seenFlags = new Set(), seenPens = new Set();

  /* --- stage: designed at 1920×1080, scaled to the browser source (broadcast_stage.js) */
  GTStage.fit(stage, root);

  function teamName(side) {
    const t = state.teams && state.teams[side];
    return t ? GT.bi(t) : GT.t("side_" + side);
  }
  function player(seat) { return (state.players && state.players[seat]) || GT.t("seat_" + seat); }

  /* --- score bug: table, round and deal; both sides' levels; the level card */
  function renderBug() {
    const bug = el("div", "bug-inner");
    const deal = state.deal, rnd = state.round || {};
    const head = el("div", "bug-head");
    head.appendChild(el("span", "bug-table", GT.tf("ov_table", { n: root.dataset.table })));
    if (rnd.no !== undefined && rnd.no !== null) {
      head.appendChild(el("span", "bug-rd", GT.tf("ov_round_deal", { r: rnd.no, d: deal ? deal.no : "—" })));
    }
    bug.appendChild(head);
    const lv = state.levels || {};
    ["EW", "NS"].forEach(function (side) {
      const row = el("div", "bug-side side-" + side + (deal && deal.level_side === side ? " playing" : ""));
      row.dataset.side = side;
      row.appendChild(el("span", "chip", side));
      row.appendChild(el("span", "team", teamName(side)));
      row.appendChild(el("span", "lvl", lv[side] === "T" ? "10" : (lv[side] || "—")));
      bug.appendChild(row);
    });
    if (deal && deal.level) {
      const lc = el("div", "bug-level");
      lc.appendChild(el("span", "label", GT.t("level_card")));
      lc.appendChild(GT.cardEl(deal.level + "h", deal.level));
      bug.appendChild(lc);
    }
    document.getElementById("ov-bug").replaceChildren(bug);
  }

  /* --- seat plates */
  function clockOf(deal, seat) {
    const tm = deal && deal.timers && deal.timers[seat];
    if (!tm) return null;
    const left = GT.secondsLeft(tm, state);
    if (left === null) return null;
    const total = tm.started_ms ? (tm.deadline_ms - tm.started_ms) / 1000 : 20;
    return { left: left, frac: total > 0 ? Math.max(0, Math.min(1, left / total)) : 0 };
  }

  function renderPlate(seat) {
    const deal = state.deal;
    const side = SIDE[seat];
    const box = el("div", "plate-inner side-" + side + (deal && deal.turn === seat ? " turn" : ""));
    box.appendChild(el("div", "stripe"));
    const who = el("div", "who");
    who.appendChild(el("span", "seat-tag", GT.t("seat_" + seat)));
    who.appendChild(el("span", "name", player(seat)));
    box.appendChild(who);
    const stats = el("div", "stats");
    if (deal) {
      const n = deal.counts ? deal.counts[seat] : null;
      const c = el("span", "cards-left", n === null || n === undefined ? "" : String(n));
      c.dataset.count = String(n);
      stats.appendChild(c);
      stats.appendChild(el("span", "unit", GT.t("cards_unit")));
      const on = deal.report_lamps && deal.report_lamps[seat];
      const rep = el("span", "report-mark lamp report " + (on ? "on" : "off"), GT.t("report_mark"));
      rep.dataset.on = on ? "1" : "0";
      stats.appendChild(rep);
      const pos = (deal.finish_order || []).indexOf(seat);
      if (pos >= 0) stats.appendChild(el("span", "place place-" + (pos + 1), GT.t("place_" + (pos + 1))));
    }
    box.appendChild(stats);
    const ck = clockOf(deal, seat);
    const clock = el("div", "clock" + (ck ? "" : " idle"));
    clock.id = "ov-clock-" + seat;
    clock.appendChild(el("span", "clock-num", ""));
    const bar = el("div", "clock-bar");
    bar.appendChild(el("i"));
    clock.appendChild(bar);
    box.appendChild(clock);
    document.getElementById("ov-seat-" + seat).replaceChildren(box);
    tickClock(seat);
  }

  function tickClock(seat) {
    const node = document.getElementById("ov-clock-" + seat);
    if (!node || !state) return;
    const ck = clockOf(state.deal, seat);
    node.classList.toggle("idle", !ck);
    if (!ck) { node.firstChild.textContent = ""; return; }
    const over = ck.left < 0;
    node.classList.toggle("over", over);
    node.classList.toggle("low", !over && ck.left <= 5);
    node.firstChild.textContent = over ? "+" + Math.floor(-ck.left) : String(Math.ceil(ck.left));
    node.lastChild.firstChild.style.width = (ck.frac * 100).toFixed(1) + "%";
  }
  setInterval(function () { SEATS.forEach(tickClock); }, 200);
  GT.clockListeners.push(function () { SEATS.forEach(tickClock); });

  /* --- the current trick: the last plays, newest emphasised, never more than fits */
  function ruledSeqs() {
    const s = new Set();
    (state.flags || []).forEach(function (f) { if (f.seq) s.add(f.seq); });
    return s;
  }

  function renderTrick() {
    const rail = document.getElementById("ov-trick");
    const deal = state.deal;
    const plays = (deal && deal.trick && deal.trick.plays) || [];
    rail.hidden = plays.length === 0;
    const ruled = ruledSeqs();
    function build(shown) {
      const box = el("div", "rail-inner");
      const hidden = plays.length - shown;
      if (hidden > 0) box.appendChild(el("div", "earlier", GT.tf("earlier_plays", { n: hidden })));
      plays.slice(plays.length - shown).forEach(function (p, i, arr) {
        const newest = i === arr.length - 1;
        const row = el("div", "tplay side-" + SIDE[p.seat] + (newest ? " newest" : "") + (p.pass ? " is-pass" : "") +
          (ruled.has(p.seq) ? " ruled" : ""));
        row.dataset.seq = p.seq;
        const seatLine = el("div", "tseat");
        if (ruled.has(p.seq)) seatLine.appendChild(el("span", "ruled-tag", GT.t("ruled")));
        seatLine.appendChild(document.createTextNode(GT.t("seat_" + p.seat) + " · " + player(p.seat)));
        row.appendChild(seatLine);
        if (p.pass) row.appendChild(el("div", "pass", GT.t("pass")));
        else {
          const cards = GT.cardsEl(p.cards, deal.level);
          cards.classList.add(p.cards.length > 5 ? "fan" : "spread");
          row.appendChild(cards);
          if (p.kind) row.appendChild(el("div", "tkind", GT.kind(p.kind)));
        }
        box.appendChild(row);
      });
      return box;
    }
    let shown = Math.min(MAX_TRICK, plays.length);
    rail.replaceChildren(build(shown));
    // Bounded: drop the oldest shown play until the rail fits its box (long bombs, straights).
    while (shown > 1 && rail.firstChild.offsetWidth > rail.clientWidth + 1) {
      shown -= 1;
      rail.replaceChildren(build(shown));
    }
    rail.dataset.shown = String(shown);
  }

  /* --- pop-ups: a confirmed flag or a penalty, shown for POP_MS, then gone */
  function pop(kind, title, lines) {
    const box = document.getElementById("ov-pops");
    const p = el("div", "pop pop-" + kind);
    p.appendChild(el("div", "pop-title", title));
    lines.forEach(function (l) { if (l) p.appendChild(el("div", "pop-line", l)); });
    box.appendChild(p);
    while (box.children.length > MAX_POPS) box.firstChild.remove();
    requestAnimationFrame(function () { p.classList.add("in"); });
    setTimeout(function () { p.classList.remove("in"); p.classList.add("out"); }, POP_MS - 400);
    setTimeout(function () { p.remove(); }, POP_MS);
  }

  function popups() {
    const now = GT.tableNow(state);
    // On the first state (page load) only what happened in the last POP_MS of table time pops up.
    const recent = function (t) { return !first || (now !== null && t && now - t < POP_MS * GT.clock.speed); };
    (state.flags || []).forEach(function (f) {
      if (seenFlags.has(f.id)) return;
      seenFlags.add(f.id);
      if (recent(f.t_ms)) pop("flag", GT.t("flag_called"), [GT.rule(f), f.seat ? GT.t("seat_" + f.seat) + " · " + player(f.seat) : ""]);
    });
    (state.penalties || []).forEach(function (r, i) {
      const key = (state.round ? state.round.no : 0) + ":" + (r.seq || i);
      if (seenPens.has(key)) return;
      seenPens.add(key);
      if (recent(r.t_ms)) pop("penalty", GT.t("ruling") + " · " + GT.t(r.level),
        [teamName(r.side) + (r.seat ? " · " + GT.t("seat_" + r.seat) + " " + player(r.seat) : ""), GT.bi(r.article || "")]);
    });
  }

  function renderDelay() {
    const d = Number((GT.clock && GT.clock.delay !== undefined ? GT.clock.delay : root.dataset.delay) || 0);
    const mark = document.getElementById("ov-delay");
    mark.hidden = !(d > 0);
    mark.replaceChildren(el("span", "dot"), el("span", "", GT.tf("live_delayed", { n: d % 1 ? d.toFixed(1) : d })));
  }

  function render() {
    if (!state) return;
    renderBug();
    SEATS.forEach(renderPlate);
    renderTrick();
    renderDelay();
    popups();
    first = false;
  }
  GT.rerender = render;
  GT.startClock(root.dataset.clock);
  GT.connect(root.dataset.stream, root, function (st) { state = st; render(); });
})();
