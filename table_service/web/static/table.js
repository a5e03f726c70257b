/* The live table view: renders the engine's referee view on every SSE update and turns every
   button into one engine event posted to the API. Nothing here changes state by itself. */
(function () {
  "use strict";
  const app = document.getElementById("app");
  const ACTIONS = app.dataset.actions;
  const SEATS = ["E", "S", "W", "N"];
  const SIDE = { E: "EW", W: "EW", S: "NS", N: "NS" };
  let state = null;
  const el = GT.el;

  function fill(id, node) {
    const box = document.getElementById(id);
    if (!box) return;
    box.replaceChildren();
    if (node) box.appendChild(node);
  }

  function timerText(deal, seat) {
    const tm = deal.timers && deal.timers[seat];
    if (!tm || tm.deadline_ms === undefined || tm.deadline_ms === null) return null;
    const now = GT.tableNow(state);
    if (now === null) return null;
    const left = (tm.deadline_ms - now) / 1000;
    if (left >= 0) return { text: Math.ceil(left) + " s", over: false };
    return { text: GT.t("overtime") + " +" + Math.floor(-left) + " s", over: true };
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
      const reported = deal.reports && deal.reports[seat] !== undefined;
      const lamp = el("span", "lamp report " + (reported ? "on" : "off"), GT.t("report") + (reported ? " " + deal.reports[seat] : ""));
      lamp.dataset.on = reported ? "1" : "0";
      info.appendChild(lamp);
      const pos = (deal.finish_order || []).indexOf(seat);
      if (pos >= 0) info.appendChild(el("span", "finished", "#" + (pos + 1)));
      box.appendChild(info);
      if (deal.turn === seat) {
        box.classList.add("turn");
        const tt = timerText(deal, seat);
        const timer = el("div", "timer" + (tt && tt.over ? " over" : ""), tt ? tt.text : GT.t("turn"));
        timer.id = "timer-" + seat;
        box.appendChild(timer);
      }
    }
    return box;
  }

  function playRow(p, level) {
    const row = el("div", "play" + (p.flagged ? " flagged" : ""));
    row.dataset.seq = p.seq;
    row.appendChild(el("span", "seq", "#" + p.seq));
    row.appendChild(el("span", "who", GT.seat(p.seat)));
    if (p.pass) row.appendChild(el("span", "pass", GT.t("pass")));
    else {
      row.appendChild(GT.cardsEl(p.cards, level));
      if (p.kind) row.appendChild(el("span", "kind", GT.kind(p.kind) + (p.rank ? " " + p.rank : "")));
    }
    return row;
  }

  function renderTrick() {
    const deal = state.deal;
    const box = el("div");
    if (deal && deal.trick) (deal.trick.plays || []).forEach(function (p) { box.appendChild(playRow(p, deal.level)); });
    fill("trick-plays", box);
  }

  function renderDealLog() {
    const deal = state.deal;
    const box = el("div");
    if (deal) {
      (deal.tricks || []).forEach(function (t, i) {
        const tr = el("div", "trick-row");
        tr.appendChild(el("span", "trick-no", (i + 1) + "."));
        (t.plays || []).forEach(function (p) { tr.appendChild(playRow(p, deal.level)); });
        box.appendChild(tr);
      });
    }
    fill("deal-log", box);
    const trib = el("div");
    if (deal) {
      if (deal.anti_tribute) trib.appendChild(el("div", "", GT.t("anti_tribute") + " " + JSON.stringify(deal.anti_tribute)));
      (deal.tributes || []).forEach(function (t) {
        const r = el("div", "tribute-row", GT.t("tribute") + ": " + GT.seat(t.from) + " → " + GT.seat(t.to) + " ");
        r.appendChild(GT.cardsEl([t.card], deal.level));
        trib.appendChild(r);
      });
      (deal.returns || []).forEach(function (t) {
        const r = el("div", "tribute-row", GT.t("return") + ": " + GT.seat(t.from) + " → " + GT.seat(t.to) + " ");
        r.appendChild(GT.cardsEl([t.card], deal.level));
        trib.appendChild(r);
      });
    }
    fill("tribute", trib);
    const pen = el("div");
    const p = state.penalties || {};
    ["EW", "NS"].forEach(function (side) {
      const l = p[side] || {};
      pen.appendChild(el("div", "ladder", side + ": " + GT.t("warning") + " " + (l.warnings || 0) + " · " +
        GT.t("violation") + " " + (l.violations || 0) + " · " + GT.t("foul") + " " + (l.fouls || 0)));
    });
    (p.records || []).forEach(function (r) {
      const row = el("div", "penalty-row", side_(r) + " " + GT.t(r.level) + " · " + (r.article || "") + (r.auto ? " (auto)" : ""));
      pen.appendChild(row);
    });
    fill("penalties", pen);
  }
  function side_(r) { return (r.side || "") + (r.seat ? " " + GT.seat(r.seat) : ""); }

  /* The camera picture of the event that raised a flag or a question, if it carried one
     (GET …/events/<seq>/crop answers 404 otherwise, and the image removes itself). */
  function cropEl(seq) {
    const img = el("img", "crop");
    img.loading = "lazy";
    img.alt = "#" + seq;
    img.onerror = function () { img.remove(); };
    img.src = app.dataset.events + "/" + seq + "/crop";
    return img;
  }

  function evidenceEl(ev, seq) {
    const box = el("div", "evidence");
    if (seq) box.appendChild(cropEl(seq));
    if (!ev) return box;
    Object.keys(ev).forEach(function (k) {
      const v = ev[k];
      if (typeof v === "string" && v.indexOf("data:image/") === 0) {
        const img = el("img", "crop");
        img.src = v; img.alt = k;
        box.appendChild(img);
      } else if (k === "cards" || k === "top" || k === "card") {
        const row = el("div", "", k + ": ");
        row.appendChild(GT.cardsEl(Array.isArray(v) ? v : (v && v.cards) || [v], state.deal && state.deal.level));
        box.appendChild(row);
      } else if (k === "overtime_ms" || k === "deadline_ms") {
        box.appendChild(el("div", "timer-reading", GT.t("timer_reading") + " · " + k + ": " + (k === "overtime_ms" ? (v / 1000).toFixed(1) + " s" : v)));
      } else {
        box.appendChild(el("div", "", k + ": " + (typeof v === "object" ? JSON.stringify(v) : v)));
      }
    });
    return box;
  }

  async function act(type, data, okMsg) {
    const r = await GT.post(ACTIONS, { type: type, data: data });
    if (r.ok && r.json.accepted) GT.toast(GT.t("done") + " #" + r.json.seq + (okMsg ? " · " + okMsg : ""), true);
    else GT.toast(GT.t("rejected") + ": " + ((r.json && r.json.error) || r.status), false);
    return r;
  }
  GT.act = act;

  function renderFlags() {
    const box = el("div");
    const flags = (state.flags || []).slice().reverse();
    const canRule = app.dataset.role !== "viewer";
    const open = flags.filter(function (f) { return f.status === "open"; });
    if (!open.length) box.appendChild(el("p", "muted", GT.t("no_flags")));
    flags.forEach(function (f) {
      const card = el("div", "flag " + f.status);
      card.id = "flag-" + f.id;
      card.dataset.status = f.status;
      card.appendChild(el("div", "flag-head", f.id + " · " + GT.seat(f.seat) + " · " + GT.w(f.status)));
      card.appendChild(el("div", "flag-rule", GT.t("rule") + ": " + (f.article || f.rule)));
      if (f.status === "open") card.appendChild(evidenceEl(f.evidence, f.seq));
      if (canRule && f.status === "open") {
        const b1 = el("button", "confirm", GT.t("confirm"));
        b1.onclick = function () { act("flag_confirmed", { flag: f.id }); };
        const b2 = el("button", "dismiss", GT.t("dismiss"));
        b2.onclick = function () { act("flag_dismissed", { flag: f.id }); };
        card.appendChild(b1); card.appendChild(b2);
      }
      if (canRule && f.status === "confirmed") {
        const b3 = el("button", "to-penalty", GT.t("penalty"));
        b3.onclick = function () { prefillPenalty(f); };
        card.appendChild(b3);
      }
      box.appendChild(card);
    });
    fill("flags", box);
  }

  function prefillPenalty(f) {
    const form = document.getElementById("f-penalty");
    if (!form) return;
    form.elements.flag.value = f.id;
    if (f.seat) { form.elements.seat.value = f.seat; form.elements.side.value = SIDE[f.seat]; }
    form.elements.article.value = f.article || f.rule;
    form.scrollIntoView({ behavior: "smooth" });
  }

  function renderQuestions() {
    const box = el("div");
    const qs = (state.deal && state.deal.questions) || [];
    const canRule = app.dataset.role !== "viewer";
    qs.forEach(function (q) {
      const card = el("div", "question");
      card.id = "question-" + q.seq;
      card.appendChild(el("div", "", "#" + q.seq + " · " + GT.seat(q.seat)));
      const cards = GT.cardsEl(q.cards, state.deal.level);
      (q.confidence || []).forEach(function (c, i) {
        if (cards.children[i]) { cards.children[i].title = Math.round(c * 100) + "%"; if (c < 0.8) cards.children[i].classList.add("doubt"); }
      });
      card.appendChild(cards);
      card.appendChild(cropEl(q.seq));
      if (canRule) {
        const ok = el("button", "confirm big", "✓ " + GT.t("read_ok"));
        ok.onclick = function () { act("play_confirmed", { ref: q.seq }); };
        card.appendChild(ok);
        const inp = el("input", "correct-cards"); inp.placeholder = (q.cards || []).join(" ");
        const fix = el("button", "", GT.t("correct_to"));
        fix.onclick = function () { act("play_corrected", { ref: q.seq, cards: splitCards(inp.value) }); };
        card.appendChild(inp); card.appendChild(fix);
      }
      box.appendChild(card);
    });
    document.getElementById("questions-card").hidden = qs.length === 0;
    fill("questions", box);
  }

  function renderHeader() {
    const rnd = state.round;
    const deal = state.deal;
    const parts = [];
    if (rnd) parts.push(GT.t("round") + " " + rnd.no + " · " + GT.w(rnd.status));
    if (deal) parts.push(GT.t("deal") + " " + deal.no + " · " + GT.w(deal.phase));
    document.getElementById("round-info").textContent = parts.join(" | ");
    const lv = state.levels || {};
    document.getElementById("levels").textContent = GT.t("levels") + ": EW " + lv.EW + " · NS " + lv.NS;
    const lc = document.getElementById("level-card");
    lc.replaceChildren();
    if (deal && deal.level) {
      lc.appendChild(el("span", "", GT.t("level_card") + " " + deal.level + (deal.level_side ? " (" + deal.level_side + ") " : " ")));
      lc.appendChild(GT.cardEl(deal.level + "h", deal.level));
      lc.appendChild(el("span", "muted", " " + GT.t("wild")));
    }
    const dv = state.devices || {};
    document.getElementById("devices").textContent = GT.t("devices") + ": " +
      Object.keys(dv).map(function (k) { return GT.w(k) + " " + GT.w(dv[k]); }).join(" · ");
  }

  function render() {
    if (!state) return;
    renderHeader();
    SEATS.forEach(function (s) { fill("seat-" + s, renderSeat(s)); });
    renderTrick();
    renderDealLog();
    renderFlags();
    renderQuestions();
  }
  GT.rerender = render;

  function tickTimers() {
    if (!state || !state.deal || !state.deal.turn) return;
    const seat = state.deal.turn;
    const node = document.getElementById("timer-" + seat);
    const tt = timerText(state.deal, seat);
    if (node && tt) { node.textContent = tt.text; node.classList.toggle("over", tt.over); }
  }
  setInterval(tickTimers, 250);

  function splitCards(text) {
    return String(text || "").split(/[\s,，]+/).filter(Boolean);
  }

  function formData(form) {
    const data = {};
    Array.prototype.forEach.call(form.elements, function (f) {
      if (!f.name) return;
      if (f.type === "checkbox") { if (f.checked) data[f.name] = true; return; }
      const v = f.value.trim();
      if (v === "") return;
      if (f.name === "cards") data.cards = splitCards(v);
      else if (f.type === "number") data[f.name] = Number(v);
      else data[f.name] = v;
    });
    return data;
  }

  document.querySelectorAll("form.action[data-type]").forEach(function (form) {
    form.addEventListener("submit", async function (e) {
      e.preventDefault();
      const r = await act(form.dataset.type, formData(form));
      if (r.ok && r.json.accepted) form.reset();
    });
  });
  const passBtn = document.getElementById("enter-pass");
  if (passBtn) passBtn.onclick = function () { act("passed", { seat: document.querySelector("#f-play select[name=seat]").value }); };
  const rel = document.getElementById("f-release");
  if (rel) rel.addEventListener("submit", async function (e) {
    e.preventDefault();
    const d = formData(rel);
    const r = await GT.post(app.dataset.release, { round: d.round, deal: d.deal });
    GT.toast(r.ok ? GT.t("done") : (r.json && r.json.error) || String(r.status), r.ok);
  });

  GT.connect(app.dataset.stream, app, function (st) { state = st; render(); });
})();
