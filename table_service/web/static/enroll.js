/* Enrol the deck from the table (issue #21): the chief referee's button in the status bar (the
   server takes an enrolment from the chief alone, web/enroll.py), where the table has a camera. The deck lies
   face up in rows; the camera's frame is searched (POST .../enroll/start), the cards the reader is
   unsure of are shown with their picture ("这是哪张牌？/ which card is this?") and the likely
   readings as buttons, then "finish" enrols them into the running watcher. API: docs/api.md,
   table_service/web/enroll.py. */
(function () {
  "use strict";
  const app = document.getElementById("app");
  if (!app || app.dataset.chief !== "1") return;
  const table = app.dataset.table;
  const base = "/api/tables/" + encodeURIComponent(table) + "/enroll";
  const bar = document.querySelector(".statusbar");
  if (!bar) return;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  /* A label of the page's language, relabelled by the language toggle (common.js GT.applyI18n): the box
     hard-coded "中文 / English" and stayed so in an English panel. */
  function said(tag, cls, key) {
    const e = el(tag, cls, GT.t(key));
    e.dataset.i18n = key;
    return e;
  }
  function post(url, body) {
    const csrf = document.querySelector('meta[name="csrf-token"]');
    return fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf ? csrf.content : "" },
      body: JSON.stringify(body || {}),
    }).then(function (r) { return r.json().catch(function () { return {}; }).then(function (j) { return { ok: r.ok, json: j }; }); });
  }

  // Only where the table has a camera (.needs-camera: the clock reading says so, common.js).
  const button = el("button", "enroll-button needs-camera", GT.t("enrol_deck"));
  button.type = "button";
  button.id = "enroll-open";
  button.dataset.i18n = "enrol_deck";
  bar.appendChild(button);

  const box = el("section", "box enroll-box");
  box.id = "enroll-box";
  box.hidden = true;
  const head = said("h2", "", "enrol_title");
  const hint = said("p", "muted", "enrol_hint");
  const status = el("p", "enroll-status");
  status.id = "enroll-status";
  const questions = el("div", "enroll-questions");
  questions.id = "enroll-questions";
  const start = said("button", "", "enrol_start");
  start.type = "button";
  start.id = "enroll-start";
  const finish = said("button", "", "enrol_finish");
  finish.type = "button";
  finish.id = "enroll-finish";
  finish.hidden = true;
  const close = said("button", "", "enrol_close");
  close.type = "button";
  /* Once enrolled: the deck file, for the hub's 比赛用牌 (one upload hands it to every table). */
  const deckLink = el("p", "enroll-deck");
  deckLink.id = "enroll-deck";
  deckLink.hidden = true;
  const download = el("a", "", GT.t("deck_download"));
  download.id = "enroll-deck-download";
  download.href = base + "/deck.npz";
  download.setAttribute("download", "");
  download.dataset.i18n = "deck_download";
  const downloadHint = el("small", "muted", " " + GT.t("deck_download_hint"));
  downloadHint.dataset.i18n = "deck_download_hint";
  deckLink.append(download, " ", downloadHint);
  box.append(head, hint, status, deckLink, questions, start, finish, close);
  (document.querySelector(".side") || document.body).prepend(box);

  let timer = null;
  /* What the status line says now: a view of the enrolment, or a message of the server's ("中文 /
     English", said in the page's language); said again when the language changes. */
  let shown = null;
  function say(what) {
    shown = what;
    if (typeof what === "string") { status.textContent = GT.bi(what); return; }
    const v = what, open = v.questions.filter(function (q) { return !q.answered; });
    const res = v.result || {};
    const text = {
      finding: GT.t("enrol_finding"),
      asking: GT.tf("enrol_asking", { found: v.found, named: v.named, open: open.length }) +
        (v.joined ? " — ⚠ " + GT.bi(v.joined) : ""),
      enrolling: GT.t("enrol_enrolling"),
      done: GT.tf("enrol_done", { n: res.faces || 0 }) +
        (res.not_enrolled && res.not_enrolled.length ? GT.tf("enrol_not_enrolled", { cards: res.not_enrolled.map(GT.cardName).join(" ") }) : "") +
        (res.check_text ? (res.check_warn ? " — ⚠ " : " — ") + GT.bi(res.check_text) : ""),
      failed: GT.t("enrol_failed") + GT.colon() + GT.bi(v.error || ""),
    }[v.status];
    status.textContent = text === undefined ? v.status : text;
  }
  const rerender = GT.rerender;
  GT.rerender = function () {
    if (rerender) rerender();
    if (shown !== null) say(shown);
    questions.querySelectorAll("img[data-id]").forEach(function (img) { img.alt = GT.tf("enrol_card_alt", { n: img.dataset.id }); });
  };
  function poll() {
    fetch(base, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) {
        // 404: no enrolment started yet — nothing to say until 开始 is tapped (it read "connection failed").
        if (r.status === 404) return null;
        return r.json();
      })
      .then(render)
      .catch(function () { say(GT.both("enrol_no_connection")); });
  }
  function render(v) {
    if (!v || typeof v.status !== "string") { say((v && v.error) || ""); return; }
    const open = v.questions.filter(function (q) { return !q.answered; });
    say(v);
    status.classList.toggle("warn", (v.status === "done" && !!(v.result && v.result.check_warn)) ||
      (v.status === "asking" && !!v.joined));
    finish.hidden = v.status !== "asking";
    deckLink.hidden = v.status !== "done";
    const barLink = document.getElementById("deck-file");
    if (v.status === "done" && barLink) barLink.hidden = false;
    if (v.status === "finding" || v.status === "enrolling") {
      timer = setTimeout(poll, 700);
    }
    if (v.status !== "asking") { questions.replaceChildren(); return; }
    questions.replaceChildren();
    open.forEach(function (q) {
      const card = el("div", "enroll-question");
      card.dataset.id = q.id;
      const img = el("img");
      img.src = base + "/card/" + q.id + ".png";
      img.alt = GT.tf("enrol_card_alt", { n: q.id });
      img.dataset.id = String(q.id);
      img.width = 120;
      card.append(said("div", "", "enrol_which"), img);
      q.likely.forEach(function (name) {
        const b = el("button", "enroll-likely", name);
        b.type = "button";
        b.addEventListener("click", function () { answer(q.id, name); });
        card.appendChild(b);
      });
      const input = el("input");
      input.placeholder = "Qh, Td, SJ…";
      input.size = 5;
      const ok = said("button", "", "enrol_ok");
      ok.type = "button";
      ok.addEventListener("click", function () { answer(q.id, input.value.trim() || null); });
      const skip = said("button", "", "enrol_skip");
      skip.type = "button";
      skip.addEventListener("click", function () { answer(q.id, null); });
      card.append(input, ok, skip);
      questions.appendChild(card);
    });
  }
  function answer(id, card) {
    post(base + "/answer", { id: id, card: card }).then(function (r) {
      if (!r.ok) { say(r.json.error || GT.both("enrol_invalid")); return; }
      render(r.json);
    });
  }
  button.addEventListener("click", function () { box.hidden = false; poll(); });
  close.addEventListener("click", function () { box.hidden = true; if (timer) clearTimeout(timer); });
  start.addEventListener("click", function () {
    post(base + "/start", {}).then(function (r) {
      // Questions are being answered: starting over throws the answers away, so only when confirmed.
      if (!r.ok && r.json.asking && window.confirm("放弃已给出的回答并重新开始？ / Discard the answers given and start over?")) {
        return post(base + "/start", { discard: true });
      }
      return r;
    }).then(function (r) {
      if (!r) return;
      if (!r.ok) { say(r.json.error || GT.both("enrol_failed")); return; }
      render(r.json);
    });
  });
  finish.addEventListener("click", function () {
    post(base + "/finish", {}).then(function (r) {
      if (!r.ok) { say(r.json.error || GT.both("enrol_failed")); return; }
      render(r.json);
    });
  });
})();
