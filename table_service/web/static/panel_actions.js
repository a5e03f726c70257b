/* The referee's entries: the "next step" box (one tap for what the table needs now: start the
   round, the cut, the drawing, a tribute or return seen, anti-tribute, pass / play / report on a
   player's behalf), the card picker, and the forms of every event a referee may enter. Each
   submits one engine event through GT.act; the engine's verdict comes back as a toast. */
(function () {
  "use strict";
  const app = document.getElementById("app");
  if (app.dataset.role === "viewer") return;
  const el = GT.el;
  const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"];
  const SUITS = ["s", "h", "c", "d"];

  /* --- card picker: tap cards instead of typing them. data-for names the input it fills;
     data-single: one card (replaces); data-instant: a tap submits the form at once. */
  function buildPicker(picker) {
    if (picker.dataset.built) return;
    picker.dataset.built = "1";
    const form = picker.closest("form");
    const input = form && form.querySelector('[name="' + picker.dataset.for + '"]');
    if (!input) return;
    const single = picker.dataset.single === "1";
    const instant = picker.dataset.instant === "1";
    const level = (GT.state() && GT.state().deal && GT.state().deal.level) || null;
    const grid = el("div", "picker-grid");
    function pick(card) {
      if (single) input.value = card;
      else input.value = (input.value.trim() ? input.value.trim() + " " : "") + card;
      input.dispatchEvent(new Event("input"));
      if (instant) form.requestSubmit();
    }
    SUITS.forEach(function (s) {
      RANKS.forEach(function (r) {
        const b = el("button", "pick");
        b.type = "button";
        b.dataset.pick = r + s;
        b.appendChild(GT.cardEl(r + s, level));
        b.onclick = function () { pick(r + s); };
        grid.appendChild(b);
      });
    });
    ["SJ", "BJ"].forEach(function (c) {
      const b = el("button", "pick joker");
      b.type = "button";
      b.dataset.pick = c;
      b.appendChild(GT.cardEl(c, level));
      b.onclick = function () { pick(c); };
      grid.appendChild(b);
    });
    picker.appendChild(grid);
    if (!single) {
      const clear = el("button", "pick-clear", GT.t("clear"));
      clear.type = "button";
      clear.onclick = function () { input.value = ""; };
      picker.appendChild(clear);
    }
  }
  GT.initPickers = function (root) { (root || document).querySelectorAll(".picker").forEach(buildPicker); };
  /* Rebuilt on a language change (the jokers' and the clear button's labels). */
  function rebuildPickers() {
    document.querySelectorAll(".picker[data-built]").forEach(function (p) {
      p.replaceChildren();
      delete p.dataset.built;
      buildPicker(p);
    });
  }
  /* The forms of the "every entry" section keep their pickers folded until their field is used. */
  document.querySelectorAll("form.action").forEach(function (form) {
    const picker = form.querySelector(".picker");
    if (!picker) return;
    form.classList.add("has-picker");
    form.addEventListener("focusin", function (e) {
      if (e.target.name === picker.dataset.for) form.classList.add("picking");
    });
    /* A card field is filled from its picker: a tap on it unfolds the cards, and a tablet's
       on-screen keyboard stays down (it covered the picker). A keyboard plugged in still types. */
    const field = form.querySelector('[name="' + picker.dataset.for + '"]');
    if (field) field.setAttribute("inputmode", "none");
  });

  /* --- form fields to event data: "a.b" names nest, numbers are numbers, "cards" is a list,
     checkboxes with data-multi collect a list. */
  function formData(form) {
    const data = {};
    Array.prototype.forEach.call(form.elements, function (f) {
      if (!f.name) return;
      let v;
      if (f.type === "checkbox") {
        if (f.dataset.multi) { if (f.checked) (data[f.name] = data[f.name] || []).push(f.value); return; }
        if (f.checked) data[f.name] = true;
        return;
      }
      v = f.value.trim();
      if (v === "") return;
      if (f.name === "cards") v = GT.splitCards(v);
      else if (f.type === "number") v = Number(v);
      const path = f.name.split(".");
      let o = data;
      for (let i = 0; i < path.length - 1; i++) o = o[path[i]] = o[path[i]] || {};
      o[path[path.length - 1]] = v;
    });
    return data;
  }
  GT.formData = formData;

  /* Per-form tidying before submit (what a form collects more generally than the event takes). */
  const PREPARE = {
    round_set_up: function (d) {
      const f = d.format || { kind: "past_a" };
      d.format = { kind: f.kind || "past_a" };
      if (f.kind === "deals") d.format.deals = f.deals || 8;
      if (f.kind === "time") d.format.minutes = f.minutes || 90;
      if (d.levels && !(d.levels.EW && d.levels.NS)) delete d.levels;
      return d;
    },
    drawing_finished: function (d) {
      if (d.counts && Object.keys(d.counts).length !== 4) delete d.counts;
      return d;
    },
  };

  /* What the toast names for a form's event (the penalty given, with the ladder's escalation). */
  const LABEL = {
    penalty_given: function (d) { return d.level ? GT.penaltyName(d.side, d.level) : ""; },
  };

  /* Forms whose event cannot be undone ask first (data-confirm): ending the round. */
  const CONFIRM = {
    end_round: function () {
      const rnd = GT.state() && GT.state().round;
      return { title: GT.tf("confirm_end_round", { n: rnd ? rnd.no : "" }), text: GT.t("confirm_end_round_text"),
        ok: GT.t("end_round"), danger: true };
    },
  };

  async function submitForm(form) {
    let data = formData(form);
    if (PREPARE[form.dataset.type]) data = PREPARE[form.dataset.type](data);
    const ask = CONFIRM[form.dataset.confirm];
    if (ask && (await GT.confirmDialog(ask())) === null) return null;
    // One tap, one event: no double submit (buttons the page disabled stay so).
    const buttons = Array.prototype.filter.call(form.querySelectorAll("button[type=submit]"), function (b) { return !b.disabled; });
    buttons.forEach(function (b) { b.disabled = true; });
    try {
      const r = await GT.act(form.dataset.type, data, LABEL[form.dataset.type] ? LABEL[form.dataset.type](data) : "");
      if (r.ok && r.json.accepted && !form.dataset.keep) form.reset();
      return r;
    } finally {
      buttons.forEach(function (b) { b.disabled = false; });
    }
  }

  document.querySelectorAll("form.action[data-type]").forEach(function (form) {
    form.addEventListener("submit", function (e) { e.preventDefault(); submitForm(form); });
  });

  /* --- the penalty form: a foul names the next deal's leader (engine/penalties.py refuses one
     without it during or between deals). Filled with the offender's 下家 — the next seat in play
     order E → N → W → S (rules/seats.py next_seat), as the rules have it ("由下家或裁判长指定领出者")
     — when the level, or the ladder's escalation of it, is a foul; a seat the referee picks stays. */
  GT.updateNextLeader = function (form) {
    form = form || document.getElementById("f-penalty");
    if (!form) return;
    const nl = form.elements.next_leader;
    const seat = form.elements.seat.value;
    const side = form.elements.side.value;
    const level = form.elements.level.value;
    const foul = !!side && GT.escalate(side, level) === "foul";
    if (foul && seat && GT.foulNeedsLeader()) {
      if (!nl.value || nl.dataset.auto) { nl.value = GT.nextSeat(seat); nl.dataset.auto = "1"; }
    } else if (nl.dataset.auto) {
      nl.value = "";
      delete nl.dataset.auto;
    }
    const hint = document.getElementById("next-leader-hint");
    if (hint) hint.classList.toggle("warn", foul);
  };
  const penForm = document.getElementById("f-penalty");
  if (penForm) {
    ["level", "seat", "side"].forEach(function (name) {
      penForm.elements[name].addEventListener("change", function () { GT.updateNextLeader(penForm); });
    });
    penForm.elements.next_leader.addEventListener("change", function () { delete penForm.elements.next_leader.dataset.auto; });
    penForm.addEventListener("reset", function () {
      delete penForm.elements.next_leader.dataset.auto;
      // A hidden field keeps its value over a reset: the next penalty must not cite this flag.
      penForm.elements.flag.value = "";
    });
  }
  /* A referee called over by voice stops play from here: the rules' procedure on a breach (play stops
     until the referee rules). The clocks stand still while the call is open; dismissing it gives the
     seat to act a whole countdown (engine: referee_time.rearm_turn_clock). */
  /* The rules' named breaches, one tap each into the penalty's article (typing stays possible). */
  function labelArticles() {
    document.querySelectorAll("#late-minutes .chip").forEach(function (b) {
    b.onclick = function () { document.querySelector('#f-late [name="minutes"]').value = b.dataset.minutes; };
  });
  document.querySelectorAll("#penalty-articles .chip").forEach(function (b) { b.textContent = GT.bi(b.dataset.article); });
  }
  document.querySelectorAll("#late-minutes .chip").forEach(function (b) {
    b.onclick = function () { document.querySelector('#f-late [name="minutes"]').value = b.dataset.minutes; };
  });
  document.querySelectorAll("#penalty-articles .chip").forEach(function (b) {
    b.onclick = function () { document.getElementById("penalty-article").value = b.dataset.article; };
  });
  labelArticles();
  const stopBtn = document.getElementById("stop-play");
  // The reason is logged in both languages, as every text of the log (the other referee's panel reads it too).
  if (stopBtn) stopBtn.onclick = function () { GT.act("referee_called", { reason: "裁判叫停 / stopped by the referee" }, GT.t("stop_play")); };
  const passBtn = document.getElementById("enter-pass");
  if (passBtn) passBtn.onclick = function () { GT.act("passed", { seat: document.querySelector("#f-play select[name=seat]").value }); };
  GT.initPickers(document);

  /* --- tap a play in the record: correct it, void it, or declare its pattern */
  const dialog = document.getElementById("play-dialog");
  let onDialogClose = null;
  function closeDialog() {
    dialog.hidden = true;
    dialog.replaceChildren();
    const fn = onDialogClose;
    onDialogClose = null;
    if (fn) fn();
  }
  GT.closeDialog = closeDialog;

  /* The panel's confirmation: a dialog in the page (large buttons for a finger, one language),
     resolving to the reason typed (opts.reason: its default; "" without one), or null when
     cancelled. */
  GT.confirmDialog = function (opts) {
    return new Promise(function (resolve) {
      if (!dialog.hidden) closeDialog();
      const box = el("form", "dialog-box confirm-box");
      box.appendChild(el("h3", "", opts.title));
      if (opts.text) box.appendChild(el("p", "", opts.text));
      let reason = null;
      if (opts.reason !== undefined) {
        const lab = el("label", "confirm-reason", GT.t("reason") + " ");
        reason = el("input");
        reason.name = "reason";
        reason.required = true;
        reason.value = opts.reason;
        lab.appendChild(reason);
        box.appendChild(lab);
      }
      const row = el("div", "step-row");
      const ok = el("button", "big confirm-ok " + (opts.danger ? "danger" : "confirm"), opts.ok || GT.t("confirm"));
      ok.type = "submit";
      const cancel = el("button", "big confirm-cancel", GT.t("cancel"));
      cancel.type = "button";
      row.appendChild(ok); row.appendChild(cancel);
      box.appendChild(row);
      let answered = false;
      box.onsubmit = function (e) {
        e.preventDefault();
        const v = reason ? reason.value.trim() : "";
        if (reason && !v) return;
        answered = true;
        resolve(v);
        closeDialog();
      };
      cancel.onclick = closeDialog;
      dialog.replaceChildren(box);
      dialog.hidden = false;
      onDialogClose = function () { if (!answered) resolve(null); };
      ok.focus();
    });
  };

  /* Undo a row of the record: event_voided with the row's event number, after a confirmation. */
  GT.openUndo = async function (seq, what) {
    const reason = await GT.confirmDialog({ title: GT.tf("undo_title", { seq: seq, what: what }), text: GT.t("undo_text"),
      reason: GT.t("undo_reason_default"), ok: GT.t("undo"), danger: true });
    if (reason === null) return null;
    return GT.act("event_voided", { ref: seq, reason: reason }, GT.t("undo") + " " + what);
  };
  GT.openPlayDialog = function (p) {
    const st = GT.state();
    const level = st.deal && st.deal.level;
    const box = el("div", "dialog-box");
    box.dataset.seq = p.seq;
    const head = el("h3", "", "#" + p.seq + " · " + GT.who(p.seat) + " ");
    if (p.pass) head.appendChild(el("span", "pass", GT.t("pass"))); else head.appendChild(GT.cardsEl(p.cards, level));
    box.appendChild(head);
    const pic = el("div", "q-picture");
    box.appendChild(pic);
    GT.eventDetail(p.seq).then(function (ev) {
      const d = (ev && ev.data) || {};
      if (typeof d.crop === "string" && d.crop.indexOf("data:image/") === 0) {
        const img = el("img", "crop"); img.src = d.crop; img.alt = "#" + p.seq; pic.replaceChildren(img);
      }
    });
    if (!p.pass) {
      const f1 = el("form", "dlg-correct");
      f1.appendChild(el("h4", "", GT.t("correct_this")));
      const inp = el("input", "correct-cards");
      inp.name = "cards";
      inp.value = (p.cards || []).join(" ");
      f1.appendChild(inp);
      const picker = el("div", "picker");
      picker.dataset.for = "cards";
      f1.appendChild(picker);
      const ok = el("button", "confirm", GT.t("correct_to"));
      ok.type = "submit";
      f1.appendChild(ok);
      f1.onsubmit = async function (e) {
        e.preventDefault();
        const r = await GT.act("play_corrected", { ref: p.seq, cards: GT.splitCards(inp.value) });
        if (r.ok && r.json.accepted) closeDialog();
      };
      box.appendChild(f1);
      const f3 = el("form", "dlg-reading");
      f3.appendChild(el("h4", "", GT.t("declare_this")));
      const kind = el("select");
      ["straight", "three_pairs", "two_triples", "full_house", "bomb", "straight_flush", "pair", "triple", "single"].forEach(function (k) {
        const o = el("option", "", GT.kind(k)); o.value = k; kind.appendChild(o);
      });
      // The rank is chosen, not typed (a 40 × 20 px field and the tablet's keyboard over the dialog).
      const rank = el("select", "reading-rank");
      rank.setAttribute("aria-label", GT.t("rank"));
      ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"].forEach(function (r) {
        const o = el("option", "", GT.rank(r)); o.value = r; rank.appendChild(o);
      });
      if (p.rank) rank.value = p.rank;
      const ok3 = el("button", "", GT.t("submit")); ok3.type = "submit";
      f3.appendChild(kind); f3.appendChild(rank); f3.appendChild(ok3);
      f3.onsubmit = async function (e) {
        e.preventDefault();
        const r = await GT.act("reading_declared", { ref: p.seq, kind: kind.value, rank: rank.value });
        if (r.ok && r.json.accepted) closeDialog();
      };
      box.appendChild(f3);
    }
    const f2 = el("form", "dlg-void");
    f2.appendChild(el("h4", "", GT.t("void_this")));
    const reason = el("input"); reason.name = "reason"; reason.required = true; reason.placeholder = GT.t("reason");
    // Pre-filled as the undo's is (one tap); the referee may say more.
    reason.value = GT.t("void_this") + " #" + p.seq;
    const ok2 = el("button", "danger", GT.t("void_event")); ok2.type = "submit";
    f2.appendChild(reason); f2.appendChild(ok2);
    f2.onsubmit = async function (e) {
      e.preventDefault();
      const r = await GT.act("event_voided", { ref: p.seq, reason: reason.value.trim() });
      if (r.ok && r.json.accepted) closeDialog();
    };
    box.appendChild(f2);
    const cancel = el("button", "dlg-cancel", GT.t("cancel"));
    cancel.onclick = closeDialog;
    box.appendChild(cancel);
    dialog.replaceChildren(box);
    dialog.hidden = false;
    GT.initPickers(box);
  };
  dialog.addEventListener("click", function (e) { if (e.target === dialog) closeDialog(); });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape" && !dialog.hidden) closeDialog(); });

  /* --- the next step: what the table needs now, one tap each */
  function lastRound(st) {
    if (st.round) return st.round;
    const rs = st.rounds || [];
    return rs.length ? rs[rs.length - 1].round : null;
  }

  function tapButton(cls, label, type, data) {
    const b = el("button", "big " + cls, label);
    b.type = "button";
    b.onclick = function () {
      b.disabled = true;  // one tap, one event
      GT.act(type, data).finally(function () { b.disabled = false; });
    };
    return b;
  }

  /* A small form with its own picker, posting `type` with the picked card(s). opts.fold: the 54
     cards stay folded behind a button (on a phone they would push the flags a screen down). */
  function pickForm(id, title, type, base, opts) {
    const form = el("form", "step-form");
    form.id = id;
    form.appendChild(el("div", "step-title", title));
    const input = el("input", "step-cards");
    input.name = opts.single ? "card" : "cards";
    input.placeholder = opts.single ? "7s" : "7s 7h";
    input.setAttribute("inputmode", "none");  // filled from the picker below: no on-screen keyboard over it
    form.appendChild(input);
    const ok = el("button", "confirm", GT.t("send"));
    ok.type = "submit";
    form.appendChild(ok);
    const picker = el("div", "picker");
    picker.dataset.for = input.name;
    if (opts.single) { picker.dataset.single = "1"; picker.dataset.instant = "1"; }
    if (opts.fold) {
      picker.hidden = true;
      const open = el("button", "pick-open", GT.t("pick_cards") + " ▾");
      open.type = "button";
      open.setAttribute("aria-expanded", "false");
      open.onclick = function () {
        picker.hidden = !picker.hidden;
        open.setAttribute("aria-expanded", picker.hidden ? "false" : "true");
        open.textContent = GT.t("pick_cards") + (picker.hidden ? " ▾" : " ▴");
      };
      form.appendChild(open);
    }
    form.appendChild(picker);
    form.onsubmit = async function (e) {
      e.preventDefault();
      const v = input.value.trim();
      if (!v) return;
      const data = Object.assign({}, base);
      if (opts.single) data.card = v; else data.cards = GT.splitCards(v);
      const r = await GT.act(type, data);
      if (r.ok && r.json.accepted) input.value = "";
    };
    return form;
  }

  function startRoundStep(box, st) {
    const prev = lastRound(st);
    box.appendChild(el("p", "muted", GT.t(st.round ? "round_over" : "no_round")));
    if (st.result && st.signatures) {
      const row = el("div", "step-row");
      ["EW", "NS"].forEach(function (side) {
        if (st.signatures[side]) return;
        // "签字 · 江苏队" (the team signs), not "签字 · EW"; the side sent is still its id.
        const b = tapButton("step-sign", "", "score_sheet_signed", { side: side });
        b.dataset.side = side;
        b.title = GT.t("sign") + " · " + GT.sideTeam(st, side);
        b.appendChild(GT.sideSays("sign_for", GT.sideLabelEl(st, side)));
        row.appendChild(b);
      });
      if (row.children.length) box.appendChild(row);
    }
    const hub = (document.getElementById("app") || {dataset: {}}).dataset.hub === "1";
    if (hub) {
      // An event's table: its rounds come from the hub's assignment (the card above, one tap), never
      // "the same players again" (after the last round that started a round the hub never drew).
      box.appendChild(el("p", "muted step-hub", GT.t("next_round_from_hub")));
    } else if (prev && prev.players) {
      const data = { players: prev.players, ruleset: (prev.ruleset && prev.ruleset.name) || "jiangsu-2013",
        format: prev.format || { kind: "past_a" } };
      if (prev.teams) data.teams = prev.teams;
      box.appendChild(tapButton("confirm step-same", GT.t("start_same_players"), "round_set_up", data));
    }
    const open = el("button", "big step-setup", GT.t("start_round") + "…");
    open.type = "button";
    open.onclick = function () {
      const f = document.getElementById("f-setup");
      if (prev && prev.players) GT.SEATS.forEach(function (s) { f.elements["players." + s].value = prev.players[s] || ""; });
      f.scrollIntoView({ block: "start" });
      f.elements["players.E"].focus();
    };
    box.appendChild(open);
  }

  function stepKey(st) {
    const rnd = st.round, deal = st.deal;
    const parts = [window.LANG, rnd ? rnd.no + ":" + rnd.status : "none", st.first_cut ? st.first_cut.recut : "-",
      JSON.stringify(st.signatures || {}), GT.sideTeam(st, "EW"), GT.sideTeam(st, "NS")];
    if (deal) {
      parts.push(deal.no, deal.phase, deal.turn, (deal.tributes || []).length, (deal.returns || []).length,
        Object.keys(deal.report_due || {}).join(""), (deal.finish_order || []).join(""),
        (deal.questions || []).map(function (q) { return q.seq; }).join(","));
    }
    return parts.join("|");
  }

  let shownKey = null;
  function renderNextStep(st) {
    const host = document.getElementById("next-step");
    if (!host) return;
    const key = stepKey(st);
    if (key === shownKey) return;  // keep a half-picked play
    const box = el("div", "steps");
    const rnd = st.round, deal = st.deal;
    const status = rnd ? rnd.status : null;
    box.dataset.step = status || "none";
    if (!rnd || status === "over") {
      startRoundStep(box, st);
    } else if (status === "cutting") {
      if (st.first_cut && st.first_cut.recut) box.appendChild(el("p", "warn", GT.t("recut") + GT.paren(GT.cardName(st.first_cut.card))));
      box.appendChild(pickForm("step-cut", GT.t("first_cut"), "first_cut_recorded", {}, { single: true }));
    } else if (status === "drawing" || status === "deal_over") {
      if (status === "deal_over") box.appendChild(el("p", "muted", GT.t("waiting_next_deal")));
      if (st.first_cut && !deal) box.appendChild(el("p", "", GT.t("first_drawer") + GT.colon() + GT.who(st.first_cut.first_drawer)));
      box.appendChild(tapButton("confirm step-draw", GT.t("drawing_finished"), "drawing_finished", {}));
    } else if (deal && deal.phase === "tribute") {
      const plan = deal.tribute_plan || {};
      const given = (deal.tributes || []).map(function (t) { return t.from; });
      (plan.payers || []).filter(function (s) { return given.indexOf(s) < 0; }).forEach(function (s) {
        box.appendChild(pickForm("step-tribute-" + s, GT.tf("tribute_by", { s: GT.who(s) }), "tribute_given", { seat: s }, { single: true }));
      });
      if (!given.length) box.appendChild(tapButton("step-anti", GT.t("anti_tribute_declared"), "anti_tribute_declared",
        { seats: plan.payers || [], cards: ["BJ", "BJ"] }));
    } else if (deal && deal.phase === "return") {
      const returned = (deal.returns || []).map(function (r) { return r.from; });
      (deal.tributes || []).forEach(function (t) {
        if (returned.indexOf(t.to) >= 0) return;
        box.appendChild(pickForm("step-return-" + t.to, GT.tf("return_by", { s: GT.who(t.to) }), "return_given", { seat: t.to }, { single: true }));
      });
    } else if (deal && deal.phase === "play" && deal.turn) {
      const s = deal.turn;
      const questions = deal.questions || [];
      const row = el("div", "step-row");
      if (questions.length) {
        // A camera read waits for the referee: a pass or a play entered now would be out of turn
        // (a wrong flag). The question first; then the next step comes back by itself.
        const go = el("button", "big warn step-question", GT.t("question_first"));
        go.type = "button";
        go.onclick = function () {
          const q = document.getElementById("question-" + questions[0].seq) || document.getElementById("questions-card");
          if (q) q.scrollIntoView({ block: "start" });
        };
        box.appendChild(go);
        box.appendChild(el("p", "muted small", GT.tf("question_first_hint", { s: GT.who(questions[0].seat || s) })));
      } else {
        row.appendChild(tapButton("step-pass", GT.tf("pass_for", { s: GT.who(s) }), "passed", { seat: s }));
      }
      Object.keys(deal.report_due || {}).forEach(function (r) {
        row.appendChild(tapButton("step-report", GT.tf("report_for", { s: GT.who(r) }), "report_pressed", { seat: r }));
      });
      if (row.children.length) box.appendChild(row);
      if (!questions.length) {
        box.appendChild(pickForm("step-play", GT.tf("play_for", { s: GT.who(s) }), "cards_played", { seat: s }, { single: false, fold: true }));
      }
    } else {
      box.appendChild(el("p", "muted", GT.w(status)));
    }
    host.replaceChildren(box);
    // Marked shown only once drawn: a render that failed half-way is tried again on the next state.
    shownKey = key;
    GT.initPickers(host);
  }

  /* The round form starts filled with the last round's players. */
  let setupFilled = false;
  function prefillSetup(st) {
    const f = document.getElementById("f-setup");
    const prev = lastRound(st);
    if (!f || setupFilled || !prev || !prev.players) return;
    setupFilled = true;
    GT.SEATS.forEach(function (s) { if (!f.elements["players." + s].value) f.elements["players." + s].value = prev.players[s] || ""; });
    if (prev.teams) ["EW", "NS"].forEach(function (s) { if (!f.elements["teams." + s].value) f.elements["teams." + s].value = prev.teams[s] || ""; });
    nameSetupLevels();
  }

  /* The round form's starting levels name each side by the team typed above them (东西 / EW while
     none is), as the status bar will once the round starts; the fields still send levels.EW / levels.NS. */
  function nameSetupLevels() {
    const f = document.getElementById("f-setup");
    if (!f) return;
    f.querySelectorAll(".setup-side[data-side]").forEach(function (span) {
      const team = f.elements["teams." + span.dataset.side];
      const name = (team && team.value.trim()) || GT.t("side_" + span.dataset.side);
      if (span.textContent !== name) span.textContent = name;
      span.title = name;
    });
  }
  (function () {
    const f = document.getElementById("f-setup");
    if (!f) return;
    ["EW", "NS"].forEach(function (s) { const i = f.elements["teams." + s]; if (i) i.addEventListener("input", nameSetupLevels); });
    nameSetupLevels();
  })();

  /* The play form's seat follows the seat on turn (a manual choice stands until the turn moves): its
     过牌 passed for East, the first option, whoever was on turn, and raised an out-of-turn flag against
     East's player (the s36 tap audit). */
  let turnShown = null;
  function seatOnTurn(st) {
    const d = st && st.deal;
    const turn = d && d.phase === "play" ? d.turn : null;
    if (!turn || turn === turnShown) return;
    turnShown = turn;
    const f = document.getElementById("f-play");
    if (f && f.elements.seat) f.elements.seat.value = turn;
  }

  GT.addHook(renderNextStep, prefillSetup, seatOnTurn);
  const rerender = GT.rerender;
  GT.rerender = function () { shownKey = null; GT.applyI18n(); labelArticles(); rebuildPickers(); nameSetupLevels(); rerender(); };
})();
