/* The camera's questions: the plays the card reader doubts, each with its picture, why it doubts,
   and the likely readings as buttons (one tap confirms or corrects the play). Apart from table.js
   because it is a card of its own that talks to the engine; redrawn only when the questions
   change, so what the referee is typing stays. Loaded after panel_state.js. */
(function () {
  "use strict";
  const el = GT.el;
  const fill = GT.fill;
  const canRule = GT.canRule;
  const act = GT.act;

  /* --- camera questions: the picture, why the reader doubts, the likely readings as buttons */
  function sameCards(a, b) { return a.length === b.length && a.every(function (c, i) { return c === b[i]; }); }

  /* `expect.question`: a referee answering on a page a moment stale (another referee was first) is
     refused, never applied on top of the first answer (web/expect.py). */
  function answer(q, cards) {
    const opts = { expect: { question: q.seq } };
    if (sameCards(cards, q.cards || [])) return act("play_confirmed", { ref: q.seq }, "", opts);
    return act("play_corrected", { ref: q.seq, cards: cards }, "", opts);
  }

  function questionCard(q) {
    const state = GT.state();
    const level = state.deal.level;
    const card = el("div", "question");
    card.id = "question-" + q.seq;
    card.appendChild(el("div", "q-head", "#" + q.seq + " · " + GT.who(q.seat) + " · " + GT.clockTime(q.t_ms)));
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
    if (q.reason === "third_copy") why.appendChild(el("li", "", GT.t("rule_card_seen_third_time") + (q.beyond ? GT.colon() + [].concat(q.beyond).map(GT.cardName).join(" ") : "")));
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
    if (canRule && q.reason === "reading" && (q.readings || []).length) {
      /* The cards are sure; which pattern the wild card makes is not (the ruleset asks): each reading
         still possible is one tap (reading_declared). */
      cands.appendChild(el("div", "muted small", GT.t("declare_this")));
      q.readings.forEach(function (text) {
        const parts = String(text).split(" ");
        const b = el("button", "candidate reading", GT.kind(parts[0]) + " " + (parts[1] ? GT.rank(parts[1]) : ""));
        b.dataset.reading = text;
        b.onclick = function () {
          act("reading_declared", { ref: q.seq, kind: parts[0], rank: parts[1] }, "", { expect: { question: q.seq } });
        };
        cands.appendChild(b);
      });
    } else if (canRule) {
      cands.appendChild(el("div", "muted small", GT.t("candidates")));
      cands.appendChild(candidateButton(q.cards || [], 0));
      /* A reading the reader did not offer: tapped from a card picker (typed codes work too), unfolded
         on demand so that a column of questions stays short. */
      const other = el("form", "q-other");
      other.appendChild(el("span", "", GT.t("other_cards") + " "));
      const inp = el("input", "correct-cards");
      inp.name = "cards";
      inp.placeholder = (q.cards || []).join(" ");
      const fix = el("button", "correct", GT.t("correct_to"));
      fix.type = "submit";
      const pickBtn = el("button", "pick-open", GT.t("pick_cards"));
      pickBtn.type = "button";
      const picker = el("div", "picker");
      picker.dataset.for = "cards";
      picker.hidden = true;
      pickBtn.onclick = function () {
        picker.hidden = !picker.hidden;
        if (!picker.hidden && GT.initPickers) GT.initPickers(other);
      };
      other.onsubmit = function (e) {
        e.preventDefault();
        const cs = GT.splitCards(inp.value);
        if (cs.length) answer(q, cs);
        else GT.toast(GT.t("pick_cards_first"), false);
      };
      other.appendChild(inp); other.appendChild(pickBtn); other.appendChild(fix); other.appendChild(picker);
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
        why.appendChild(el("li", "", GT.t("doubt_reason") + GT.colon() + (q.confidence || []).map(function (c) { return Math.round(c * 100) + "%"; }).join(" ")));
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
    const state = GT.state();
    const qs = (state.deal && state.deal.questions) || [];
    const key = qs.map(function (q) { return q.seq + ":" + (q.cards || []).join(","); }).join("|") + "|" + window.LANG;
    document.getElementById("questions-card").hidden = qs.length === 0;
    if (key === shownQuestions) return;  // keep what the referee is typing
    shownQuestions = key;
    const box = el("div");
    qs.forEach(function (q) { box.appendChild(questionCard(q)); });
    fill("questions", box);
  }

  /* Drawn by table.js on every state; forget() makes the next state redraw it (GT.rerender). */
  GT.questionsCard = { render: renderQuestions, forget: function () { shownQuestions = ""; } };
})();
