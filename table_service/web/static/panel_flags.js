/* The flags card: what the rule checker flagged, grouped by deal, each with its evidence made
   readable, the referee's confirm and dismiss, the one-tap penalties (one penalty a flag, its
   buttons held while it is on its way: the pending-penalty guard), the penalty form prefilled,
   and the undo of a ruling or a penalty given. Apart from table.js because it is the panel's
   busiest card and keeps state of its own (what is pending). Loaded after panel_record.js, whose
   undo buttons it uses. */
(function () {
  "use strict";
  const app = document.getElementById("app");
  const el = GT.el;
  const fill = GT.fill;
  const SIDE = GT.SIDE;
  const canRule = GT.canRule;
  const isChief = GT.isChief;
  const act = GT.act;
  const addUndo = GT.addUndo;
  const side_ = GT.sideAndSeat;

  /* The camera picture of event seq, asked for only where the flag says its event carried one
     (f.picture: every other flag's ask was a 404); an image that fails (damaged) removes itself. */
  function cropEl(seq) {
    const img = el("img", "crop");
    img.loading = "lazy";
    img.alt = "#" + seq;
    img.onerror = function () { img.remove(); };
    img.src = app.dataset.events + "/" + seq + "/crop";
    return img;
  }

  /* --- flag evidence, readable: times as clock times and seconds, seats by name, cards as cards */
  const CARD_KEYS = { cards: 1, top: 1, card: 1, tribute: 1, proof_card: 1, held: 1, cards_declared: 1, corrected_card: 1 };
  const SEAT_KEYS = { turn: 1, next_actor: 1, to: 1, seat: 1, payers: 1, declared_by: 1 };
  const SEQ_KEYS = { play_seq: 1, tribute_seq: 1, proof_seq: 1, first_seq: 1, earlier: 1, top_seq: 1, declared_seq: 1, tribute_seqs: 1, corrected_seq: 1 };
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
    const state = GT.state();
    const level = state.deal && state.deal.level;
    if (CARD_KEYS[k]) {
      const cards = Array.isArray(v) ? v : (v && typeof v === "object" && v.cards) ? v.cards : [v];
      return GT.cardsEl(cards, level);
    }
    if (SEAT_KEYS[k] && typeof v === "string") return el("span", "", GT.who(v));
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
    if (k === "level" || k === "rank") return el("span", "", GT.rank(v));  // the level card: 10, not T
    if (typeof v === "boolean") return el("span", "", GT.t(v ? "yes" : "no"));
    if (v && typeof v === "object" && !Array.isArray(v)) {
      return el("span", "", Object.keys(v).map(function (s) { return (SIDE[s] ? GT.who(s) : s) + " " + v[s]; }).join(" · "));
    }
    return el("span", "", GT.bi(Array.isArray(v) ? v.join(", ") : v));
  }

  function evidenceEl(f) {
    const box = el("div", "evidence");
    const ev = f.evidence;
    if (f.seq && f.picture) box.appendChild(cropEl(f.seq));
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

  /* One-tap penalty for a flag: the engine applies the ladder (a 2nd warning is a violation). */
  function penaltyFor(f, level) {
    const side = f.seat ? SIDE[f.seat] : (f.evidence && f.evidence.side) || null;
    // The article in both languages, as the log keeps every text (the tap audit: a Chinese panel logged
    // "越序出牌" alone, and the English score sheet showed it in Chinese).
    const data = { level: level, side: side, article: f.article || f.rule, flag: f.id };
    if (f.seat) data.seat = f.seat;
    // A tap the ladder turns into a foul (the chief's) names the next leader: the offender's 下家.
    if (f.seat && side && GT.escalate(side, level) === "foul" && GT.foulNeedsLeader()) data.next_leader = GT.nextSeat(f.seat);
    return data;
  }

  /* Flags whose penalty is on its way: id -> true while the request runs, then the seq it got
     until a state that has it is shown. Their penalty buttons stay disabled meanwhile, across
     redraws, so a second tap cannot give (and escalate) a second penalty. */
  const pendingPenalty = {};
  function setBusy(bar, on) { bar.querySelectorAll("button").forEach(function (b) { b.disabled = on || b.classList.contains("chief-only"); }); }
  /* Every flag button: disabled while its request runs (a double tap posts once). */
  function flagAct(bar, type, data, label, flagId) {
    if (bar.dataset.busy === "1") return Promise.resolve(null);
    bar.dataset.busy = "1";
    setBusy(bar, true);
    if (flagId) pendingPenalty[flagId] = true;
    function failed() {
      const state = GT.state();
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
      const state = GT.state();
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
    const state = GT.state();
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
    const b = el("button", "confirm as-read", GT.tf("enter_as_read", { c: GT.cardName(card) }));
    b.onclick = async function () {
      const r = await act(type, { seat: f.seat, card: card });
      if (r.ok && r.json.accepted) act("flag_dismissed", { flag: f.id, note: window.I18N.entered_as_read.join(" / ") });
    };
    return b;
  }

  /* A wrong tribute found in play (flag tribute_not_highest, or tribute_wild_card: the tribute's own
     event raised it): the tribute it concerns while the deal is in play and a card is on the table —
     the card is exchanged then (tribute_corrected), the plays standing; before, the tribute's undo. */
  function tributeOf(f) {
    const state = GT.state();
    const deal = state && state.deal;
    if (!deal || f.deal !== deal.no || deal.phase !== "play" || !GT.firstCardPlayed || !GT.firstCardPlayed(deal)) return null;
    const seq = f.rule === "tribute_wild_card" ? f.seq : f.rule === "tribute_not_highest" && f.evidence ? f.evidence.tribute_seq : null;
    return (deal.tributes || []).filter(function (t) { return t.seq === seq; })[0] || null;
  }

  /* 纠正贡牌: a dialog with one card picked (the card given now) and the reason, logged in both
     languages as every text of the log; the warning the rules give is the flag's own button after. */
  /* ``misreadOnly``: a return's row (a return is not given again: only its reading is corrected). */
  GT.openTributeCorrection = function (t, misreadOnly) {
    const dialog = document.getElementById("play-dialog");
    const state = GT.state();
    const level = state.deal && state.deal.level;
    const box = el("form", "dialog-box tribute-correction");
    box.dataset.seq = String(t.seq);
    // A return's row: its own words (a return, read wrong; nobody erred, no penalty), no reason asked.
    const head = el("h3", "", GT.tf(misreadOnly ? "correct_return_title" : "correct_tribute_title",
                                    { seq: t.seq, s: GT.who(t.from) }) + " ");
    head.appendChild(GT.cardsEl([t.card], level));
    box.appendChild(head);
    box.appendChild(el("p", "muted", GT.t(misreadOnly ? "correct_return_text" : "correct_tribute_text")));
    const input = el("input", "step-cards");
    input.name = "card";
    input.placeholder = "Ah";
    input.setAttribute("inputmode", "none");
    box.appendChild(input);
    const picker = el("div", "picker");
    picker.dataset.for = "card";
    picker.dataset.single = "1";
    box.appendChild(picker);
    const lab = el("label", "confirm-reason", GT.t("reason") + " ");
    const reason = el("input");
    reason.name = "reason";
    reason.required = true;
    reason.value = window.I18N.correct_tribute_reason.join(" / ");
    lab.appendChild(reason);
    if (!misreadOnly) box.appendChild(lab);
    // A misread (the camera, or a tap on the wrong card): the card always was this one, so it is
    // corrected as a misread play is (play_corrected re-folds the deal; no breach, no warning).
    const mis = el("label", "misread-choice", " " + GT.t("misread_card"));
    const misBox = el("input");
    misBox.type = "checkbox";
    misBox.name = "misread";
    misBox.checked = !!misreadOnly;
    misBox.disabled = !!misreadOnly;
    mis.prepend(misBox);
    box.appendChild(mis);
    const row = el("div", "step-row");
    const ok = el("button", "big confirm", GT.t(misreadOnly ? "correct_reading" : "correct_tribute"));
    ok.type = "submit";
    const cancel = el("button", "big dlg-cancel", GT.t("cancel"));
    cancel.type = "button";
    cancel.onclick = function () { GT.closeDialog(); };
    row.appendChild(ok); row.appendChild(cancel);
    box.appendChild(row);
    box.onsubmit = async function (e) {
      e.preventDefault();
      const card = input.value.trim();
      if (!card || (!misBox.checked && !reason.value.trim())) { GT.toast(GT.t("pick_cards"), false); return; }
      const r = misBox.checked
        ? await act("play_corrected", { ref: t.seq, cards: [card] }, GT.t("correct_reading") + " " + GT.who(t.from) + " " + GT.cardName(card))
        : await act("tribute_corrected", { ref: t.seq, card: card, reason: reason.value.trim() },
          GT.t("correct_tribute") + " " + GT.who(t.from) + " " + GT.cardName(card));
      if (r.ok && r.json.accepted) GT.closeDialog();
    };
    dialog.replaceChildren(box);
    dialog.hidden = false;
    GT.initPickers(box);
  };

  function flagCard(f) {
    const state = GT.state();
    const card = el("div", "flag " + f.status);
    card.id = "flag-" + f.id;
    card.dataset.status = f.status;
    const head = el("div", "flag-head");
    head.appendChild(el("span", "flag-id", f.id));
    head.appendChild(el("span", "flag-seat", GT.who(f.seat)));
    head.appendChild(el("span", "flag-time", GT.clockTime(f.t_ms)));
    head.appendChild(el("span", "flag-status", GT.w(f.status)));
    card.appendChild(head);
    card.appendChild(el("div", "flag-rule", GT.t("rule") + GT.colon() + GT.rule(f)));
    if (f.status === "open") card.appendChild(evidenceEl(f));
    const given = ((state.penalties && state.penalties.records) || []).filter(function (r) { return r.flag === f.id; });
    given.forEach(function (r) {
      const name = (r.given && r.given !== r.level ? GT.t(r.given) + " → " : "") + GT.t(r.level);
      const line = el("div", "flag-penalty penalty-" + r.level + (r.withdrawn ? " withdrawn" : ""),
        GT.t("penalty") + GT.colon() + name + (r.withdrawn ? GT.paren(GT.w("withdrawn")) : "") + " ");
      line.dataset.seq = String(r.seq);
      line.appendChild(el("span", "seq muted small", "#" + r.seq + " "));
      if (!r.withdrawn) addUndo(line, r.seq, GT.t("penalty") + " " + name + " · " + side_(r), null, GT.t("undo_penalty"));
      card.appendChild(line);
    });
    // The referee's ruling on it (confirm / dismiss) can be undone while it is of this deal; not a second
    // time when the ruling was the penalty itself (a penalty on a flag upholds it): one undo, named.
    const byPenalty = given.some(function (r) { return r.seq === f.closed_seq; });
    if ((f.status === "confirmed" || f.status === "dismissed") && f.closed_seq && !byPenalty) {
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
        // Confirming a penalty_escalation applies nothing (the foul is given with 犯规…): the tap says so.
        const noted = f.rule === "penalty_escalation";
        const b1 = el("button", "confirm", GT.t(noted ? "escalation_noted" : "confirm"));
        if (noted) b1.title = GT.t("escalation_noted_title");
        b1.onclick = function () { flagAct(bar, "flag_confirmed", { flag: f.id }, b1.textContent + " " + f.id); };
        const b2 = el("button", "dismiss", GT.t("dismiss"));
        b2.onclick = function () { flagAct(bar, "flag_dismissed", { flag: f.id }, GT.t("dismiss") + " " + f.id); };
        bar.appendChild(b1); bar.appendChild(b2);
        const asRead = asReadButton(f);
        if (asRead) bar.insertBefore(asRead, b1);
        const trib = tributeOf(f);
        if (trib) {
          const c = el("button", "correct-tribute", GT.t("correct_tribute"));
          c.type = "button";
          c.onclick = function () { GT.openTributeCorrection(trib); };
          bar.insertBefore(c, b1);
        }
      }
      if (mayPenalise) {
        const side = f.seat ? SIDE[f.seat] : null;
        if (side) {
          const w = el("button", "pen-warning", GT.t("give_warning"));
          w.onclick = function () { flagAct(bar, "penalty_given", penaltyFor(f, "warning"), GT.penaltyName(side, "warning"), f.id); };
          const v = el("button", "pen-violation", GT.t("give_violation"));
          v.onclick = function () { flagAct(bar, "penalty_given", penaltyFor(f, "violation"), GT.penaltyName(side, "violation"), f.id); };
          // A tap the ladder would make a foul or a loss is the chief's: a referee sees why, not a refusal.
          [[w, "warning"], [v, "violation"]].forEach(function (pair) {
            const fin = GT.escalate(side, pair[1]);
            if (!isChief && (fin === "foul" || fin === "loss")) {
              pair[0].disabled = true;
              pair[0].classList.add("chief-only");
              pair[0].title = GT.penaltyName(side, pair[1]);
              pair[0].textContent += " · " + GT.t("chief_only");
            }
          });
          bar.appendChild(w); bar.appendChild(v);
        }
        const b3 = el("button", "to-penalty", isChief ? GT.t("give_foul") : GT.t("give_penalty") + "…");
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
    const state = GT.state();
    const records = (state.penalties && state.penalties.records) || [];
    Object.keys(pendingPenalty).forEach(function (id) {
      const seq = pendingPenalty[id];
      if (typeof seq === "number" && state.last_seq >= seq) delete pendingPenalty[id];
    });
    const key = JSON.stringify([window.LANG, GT.teamOf(state, "EW"), GT.teamOf(state, "NS"),
      state.deal && [state.deal.no, state.deal.started_ms], state.flags || [],
      records.map(function (r) { return [r.seq, r.flag, r.level, r.withdrawn]; }), Object.keys(pendingPenalty)]);
    if (key === shownFlags) return;
    shownFlags = key;
    const box = el("div");
    // Open flags first, oldest first, so a flag raised now is drawn below the ones already there: drawn
    // first, it pushed every button down and a finger on one flag's 确认 landed on the new flag's (the s36
    // tap audit confirmed the wrong flag). The flags already ruled on follow, newest first.
    const all = state.flags || [];
    const flags = all.filter(function (f) { return f.status === "open"; })
      .concat(all.filter(function (f) { return f.status !== "open"; }).reverse());
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
      // "第 1 副 · 2 个标记 · 1 个待处理" (it said "第 1 副 · 2 · 待处理 1": two of what?)
      grp.appendChild(el("summary", "", title + " · " + GT.tf("flag_count", { n: list.length }) +
        (nOpen ? " · " + GT.tf("open_count", { n: nOpen }) : "")));
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
    form.elements.article.value = f.article || f.rule;
    if (isChief) form.elements.level.value = "foul";
    if (GT.updateNextLeader) GT.updateNextLeader(form);
    form.scrollIntoView({ block: "start" });
  }

  /* Drawn by table.js on every state; forget() makes the next state redraw it (GT.rerender). */
  GT.flagsCard = { render: renderFlags, forget: function () { shownFlags = ""; } };
})();
