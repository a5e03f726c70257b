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
  const head = el("h2", "", "从桌面登记牌组 / Enrol the deck from the table");
  const hint = el("p", "muted", "把整副牌正面朝上成行摆在桌上，然后开始 / Lay the whole deck face up in rows on the table, then start.");
  const status = el("p", "enroll-status");
  status.id = "enroll-status";
  const questions = el("div", "enroll-questions");
  questions.id = "enroll-questions";
  const start = el("button", "", "开始 / Start");
  start.type = "button";
  start.id = "enroll-start";
  const finish = el("button", "", "完成登记 / Finish");
  finish.type = "button";
  finish.id = "enroll-finish";
  finish.hidden = true;
  const close = el("button", "", "关闭 / Close");
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
  function poll() {
    fetch(base, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) {
        // 404: no enrolment started yet — nothing to say until 开始 is tapped (it read "connection failed").
        if (r.status === 404) return null;
        return r.json();
      })
      .then(render)
      .catch(function () { status.textContent = "连接失败 / connection failed"; });
  }
  function render(v) {
    if (!v || typeof v.status !== "string") { status.textContent = (v && v.error) || ""; return; }
    const open = v.questions.filter(function (q) { return !q.answered; });
    status.textContent = {
      finding: "正在找牌… / finding the cards…",
      asking: "找到 " + v.found + " 张，自动识别 " + v.named + " 张，待确认 " + open.length + " 张 / found " + v.found +
        ", named " + v.named + ", " + open.length + " to confirm" + (v.joined ? " — ⚠ " + v.joined : ""),
      enrolling: "正在登记（需几分钟，可继续比赛）… / enrolling (a few minutes; play may go on)…",
      done: "登记完成 / enrolled: " + (v.result.faces || 0) + " faces" +
        (v.result.not_enrolled && v.result.not_enrolled.length
          ? "（未登记 " + v.result.not_enrolled.join(" ") + "，按通用模型读 / not enrolled, read zero-shot）" : "") +
        (v.result.check_text ? (v.result.check_warn ? " — ⚠ " : " — ") + v.result.check_text : ""),
      failed: "失败 / failed: " + (v.error || ""),
    }[v.status] || v.status;
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
      img.alt = "card " + q.id;
      img.width = 120;
      card.append(el("div", "", "这是哪张牌？/ Which card is this?"), img);
      q.likely.forEach(function (name) {
        const b = el("button", "enroll-likely", name);
        b.type = "button";
        b.addEventListener("click", function () { answer(q.id, name); });
        card.appendChild(b);
      });
      const input = el("input");
      input.placeholder = "Qh, Td, SJ…";
      input.size = 5;
      const ok = el("button", "", "确定 / OK");
      ok.type = "button";
      ok.addEventListener("click", function () { answer(q.id, input.value.trim() || null); });
      const skip = el("button", "", "跳过 / Skip");
      skip.type = "button";
      skip.addEventListener("click", function () { answer(q.id, null); });
      card.append(input, ok, skip);
      questions.appendChild(card);
    });
  }
  function answer(id, card) {
    post(base + "/answer", { id: id, card: card }).then(function (r) {
      if (!r.ok) { status.textContent = r.json.error || "无效 / invalid"; return; }
      render(r.json);
    });
  }
  button.addEventListener("click", function () { box.hidden = false; poll(); });
  close.addEventListener("click", function () { box.hidden = true; if (timer) clearTimeout(timer); });
  start.addEventListener("click", function () {
    post(base + "/start", {}).then(function (r) {
      // Questions are being answered: starting over throws the answers away, so only when confirmed.
      if (!r.ok && r.json.asking && window.confirm("放弃已给出的回答并重新开始？/ Discard the answers given and start over?")) {
        return post(base + "/start", { discard: true });
      }
      return r;
    }).then(function (r) {
      if (!r) return;
      if (!r.ok) { status.textContent = r.json.error || "失败 / failed"; return; }
      render(r.json);
    });
  });
  finish.addEventListener("click", function () {
    post(base + "/finish", {}).then(function (r) {
      if (!r.ok) { status.textContent = r.json.error || "失败 / failed"; return; }
      render(r.json);
    });
  });
})();
