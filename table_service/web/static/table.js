/* The live table view: renders the engine's referee view on every SSE update (seats, trick, the
   status bar with its badge and the camera's health), and starts the stream. Buttons post one
   engine event each to the API (GT.act); nothing here changes state by itself. What the panel's
   scripts share is in panel_state.js; the record with its undo buttons, the flags and the camera's
   questions are cards of their own (panel_record.js, panel_flags.js, panel_questions.js), loaded
   before this file so that the first state draws them all. The one-tap "next step" box and the
   forms live in panel_actions.js. */
(function () {
  "use strict";
  const app = document.getElementById("app");
  const SEATS = GT.SEATS;
  const SIDE = GT.SIDE;
  const el = GT.el;
  const fill = GT.fill;
  const playRow = GT.playRow;
  /* The cards drawn after the seats and the trick, in this order. */
  const CARDS = [GT.recordCard, GT.flagsCard, GT.questionsCard];

  /* The countdown as the engine has it: deadline_ms minus the table clock now (GT.tableNow reads
     the server's clock), in tenths: the number a referee rules on. */
  function timerText(deal, seat) {
    const state = GT.state();
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
    const state = GT.state();
    const deal = state.deal;
    const rnd = state.round || {};
    const box = el("div", "seat-inner");
    const head = el("div", "seat-head");
    head.appendChild(el("span", "seat-name", GT.seat(seat)));
    head.appendChild(el("span", "player", (rnd.players && rnd.players[seat]) || ""));
    // The seat's side by its team (东西 / EW without one), not "EW": one line, cut, whole in its title.
    const tag = GT.sideLabelEl(state, SIDE[seat]);
    tag.classList.add("side-tag");
    tag.dataset.side = SIDE[seat];
    head.appendChild(tag);
    box.appendChild(head);
    if (deal) {
      const info = el("div", "seat-info");
      const left = deal.counts ? deal.counts[seat] : null;
      const cl = el("span", "cards-left", GT.t("cards_left") + " " + (left === undefined || left === null ? "?" : left));
      cl.dataset.count = String(left);
      info.appendChild(cl);
      info.appendChild(reportChip(deal, seat));
      const pos = (deal.finish_order || []).indexOf(seat);
      // The finishing place in the words of the game (上游 … 下游), as the overlay and the past deals say it.
      if (pos >= 0) info.appendChild(el("span", "finished", GT.t("place_" + (pos + 1))));
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

  function renderTrick() {
    const state = GT.state();
    const deal = state.deal;
    const box = el("div");
    if (deal && deal.trick) (deal.trick.plays || []).forEach(function (p) { box.appendChild(playRow(p, deal.level)); });
    fill("trick-plays", box);
    const tp = document.getElementById("trick-plays");
    if (tp) tp.scrollTop = tp.scrollHeight;  // the newest play in view
  }

  /* --- the header: round, levels, the camera's health, devices. The camera's health comes with
     the clock reading (every 3 s): it changes without any event (lagging, not reading). */
  let cameraHealth = null;
  GT.onCamera = function (cam) { cameraHealth = cam; if (GT.state()) renderCamera(); };
  function renderCamera() {
    const state = GT.state();
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

  /* The status bar's "待处理 N · 识别存疑 M": on a phone the flags and questions are screens below; a
     tap brings the questions (or, with none, the flags) into view. */
  function renderBadge() {
    const state = GT.state();
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
    const state = GT.state();
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
    const state = GT.state();
    renderBadge();
    const deal = state.deal;
    // "第 1 轮 · 第 1 副 · 出牌阶段" (it read "轮次 1 · 出牌 | 副 1 · 出牌").
    document.getElementById("round-info").textContent = state.round ? GT.where(state) : "";
    GT.fillLevels(document.getElementById("levels"), state.levels, state);
    const lc = document.getElementById("level-card");
    lc.replaceChildren();
    if (deal && deal.level) {
      lc.appendChild(el("span", "", GT.t("level_card") + " " + GT.rank(deal.level)));
      if (deal.level_side) {  // whose level it is, named as the levels beside it name the side
        const zh = window.LANG === "zh";
        const whose = el("span", "lc-side", zh ? "（" : "(");
        whose.appendChild(GT.sideLabelEl(state, deal.level_side));
        whose.appendChild(document.createTextNode(zh ? "）" : ")"));
        lc.appendChild(whose);
      }
      lc.appendChild(GT.cardEl(deal.level + "h", deal.level));
      lc.appendChild(el("span", "muted", GT.t("wild")));
    }
    renderCamera();
    const dv = state.devices || {};
    document.getElementById("devices").textContent = GT.t("devices") + GT.colon() +
      Object.keys(dv).filter(function (k) { return typeof dv[k] !== "object"; })
        .map(function (k) { return GT.w(k) + " " + GT.w(dv[k]); }).join(" · ");
  }

  /* assignment.js: the teams' names came with the hub's assignment, or changed: the levels, the seats'
     sides, the next step's sign buttons and the forms name the sides by them. */
  GT.renderNames = function () { if (GT.state()) render(); };

  /* Events of the log this release passes over as the table starts (an older release's log: a
     ruling on a flag these rules no longer raise). Kept in the log, not in the state: the referee
     sees which, and may give again what still stands. */
  function renderNotApplied() {
    const box = document.getElementById("not-applied");
    const gone = GT.state().not_applied || [];
    if (!box) return;
    box.hidden = !gone.length;
    const key = JSON.stringify([window.LANG, gone]);
    if (!gone.length || box.dataset.key === key) return;
    box.dataset.key = key;
    box.replaceChildren(el("strong", "", GT.tf("not_applied", { n: gone.length })));
    const list = el("ul", "");
    gone.forEach(function (g) {
      list.appendChild(el("li", "", "#" + g.seq + " " + GT.evt(g.type) + " — " + GT.refusal(g.error || "")));
    });
    box.appendChild(list);
  }

  function render() {
    const state = GT.state();
    if (!state) return;
    renderHeader();
    renderNotApplied();
    SEATS.forEach(function (s) { fill("seat-" + s, renderSeat(s)); });
    renderTrick();
    CARDS.forEach(function (c) { c.render(); });
    GT.hooks.forEach(function (fn) { try { fn(state); } catch (e) { console.error(e); } });
  }
  GT.rerender = function () { CARDS.forEach(function (c) { c.forget(); }); render(); };

  function tickTimers() {
    const state = GT.state();
    if (!state || !state.deal || !state.deal.timers) return;
    Object.keys(state.deal.timers).forEach(function (seat) {
      const node = document.getElementById("timer-" + seat);
      const tt = timerText(state.deal, seat);
      if (node && tt) { node.textContent = tt.text; node.classList.toggle("over", tt.over); node.dataset.left = tt.left.toFixed(2); }
    });
  }
  setInterval(tickTimers, 100);
  GT.clockListeners.push(tickTimers);

  GT.startClock(app.dataset.clock, 3000);
  GT.connect(app.dataset.stream, app, function (st) { GT.setState(st); render(); });
})();
