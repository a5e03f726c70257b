/* The organiser page's scripts (the Content-Security-Policy allows no inline handler):
   - forms that undo something for every table ask first (data-confirm);
   - the appeal form offers only the chosen table's two teams (each table option carries its
     data-ns / data-ew team ids): the hub refuses a team that did not play there;
   - the correction form fills in the chosen table's current result (to change what is wrong,
     not to type it all again) and its basis, the hub's record of that result: a correction made
     against a result someone else has corrected since is refused, never applied over theirs;
   - a refused result whose teams are the draw's (in its seats or swapped) goes into the hand-entry
     form with one tap, turned to the draw's sides (nobody swaps the scores in their head);
   - the team form holds the chosen team's name and players (changing one player is one edit);
   - an upheld appeal's button chooses its table in the correction form;
   - a refused result of a table that already has one goes into the correction form with one tap,
     turned to the draw's sides, the reason begun;
   - a long table list gets a table-number box that chooses the table typed; a list grouped by round
     (the correction's: every finished table of every published round) gets a round chooser too, and
     the box chooses in that round (it chose the latest only: an earlier round could not be corrected
     by number, the s36 audit); a list of many rounds holds one round at a time, the others in a template
     the round chooser swaps in (a select of 1,200 options took a tablet seconds to lay out, s39);
   - choosing a failed table's match to move reloads the move form filled in from that table's report. */
(function () {
  "use strict";
  // A refused result's values (a button's data-*) into the form whose fields start with ``prefix``,
  // turned to the draw's sides when the table played NS and EW swapped.
  function putOnDrawSides(d, prefix) {
    const swap = d.swapped === "1";
    const other = {ns: "ew", ew: "ns", both: "both"};
    const put = {"ns": swap ? d.ewLevels : d.nsLevels, "ew": swap ? d.nsLevels : d.ewLevels,
                 "forfeit": d.forfeit && swap ? other[d.forfeit] : d.forfeit,
                 "ns-score": swap ? d.ewScore : d.nsScore, "ew-score": swap ? d.nsScore : d.ewScore};
    Object.keys(put).forEach(function (id) {
      const el = document.getElementById(prefix + id);
      if (el) el.value = put[id] || "";
    });
  }
  /* A list of many rounds (select[data-rounds], the correction's) holds one round at a time, the others
     in its template: Chromium took seconds to lay out a select of 1,200 options on a tablet. */
  function roundsOf(sel) { return sel.dataset.rounds ? document.getElementById(sel.dataset.rounds) : null; }
  function showRound(sel, rnd) {
    const tpl = roundsOf(sel);
    const want = tpl && tpl.content.querySelector('optgroup[data-round="' + rnd + '"]');
    if (!want) return;  // shown already, or no such round
    Array.prototype.slice.call(sel.children).forEach(function (g) { tpl.content.appendChild(g); });
    sel.appendChild(want);
  }
  function choose(sel, slot) {  // any table of any round, its round swapped in first
    showRound(sel, String(slot).split("|")[0]);
    sel.value = slot;
  }
  /* Lists sent once (the s39 audit: 460–870 KB at 200 tables, each list twice): the appeal form's
     tables are the correction list's (select[data-copy]), its teams and the team-edit list are the
     teams table's rows (select[data-teams]). Filled first: everything below reads them. */
  document.querySelectorAll("select[data-copy]").forEach(function (sel) {
    const from = document.getElementById(sel.dataset.copy);
    if (!from) return;
    sel.replaceChildren.apply(sel, Array.prototype.map.call(from.children, function (n) { return n.cloneNode(true); }));
    const rounds = roundsOf(from);
    if (rounds) {  // its other rounds too, in a template of its own
      const own = document.createElement("template");
      own.id = sel.id + "-rounds";
      own.content.appendChild(rounds.content.cloneNode(true));
      sel.after(own);
      sel.dataset.rounds = own.id;
    }
  });
  const teamRows = document.querySelectorAll("#teams-table tbody tr[data-team]");
  document.querySelectorAll("select[data-teams]").forEach(function (sel) {
    const edit = sel.dataset.teams === "edit";
    Array.prototype.forEach.call(teamRows, function (row) {
      const id = row.dataset.team, name = row.cells[1].textContent, players = row.cells[2].textContent;
      const opt = new Option(edit ? id + " · " + name + " · " + players : name + " (" + id + ")", id);
      if (edit) { opt.dataset.name = name; opt.dataset.players = players; }
      sel.add(opt);
    });
  });
  /* One withdrawal form for all the rows: a row's 退赛 brings it into that row, its question naming the
     team (data-confirm, asked on submit below), the reason box ready. */
  const wform = document.getElementById("withdraw-form");
  if (wform) {
    const question = wform.dataset.confirm;
    const openFor = function (row) {
      const id = row.dataset.team, name = row.cells[1].textContent;
      wform.elements.namedItem("team").value = id;
      wform.dataset.confirm = question.split("{name}").join(name).split("{id}").join(id);
      document.getElementById("withdraw-who").textContent = name + " (" + id + ")";
      row.cells[row.cells.length - 1].appendChild(wform);
      wform.hidden = false;
    };
    teamRows.forEach(function (row) {
      const b = row.querySelector("button.withdraw");
      if (b) b.addEventListener("click", function () { openFor(row); document.getElementById("withdraw-reason").focus(); });
    });
    document.getElementById("withdraw-cancel").addEventListener("click", function () { wform.hidden = true; });
    wform.addEventListener("kept", function () {  // put back after a refusal: in its team's row again
      const row = document.querySelector('#teams-table tr[data-team="' + CSS.escape(wform.elements.namedItem("team").value) + '"]');
      if (row) openFor(row);
    });
  }
  /* The move form is filled in from the chosen failed table's last report (the hub has it): choosing
     another match reloads the page with its report (the 读取 button does the same without a script). */
  const moveSlot = document.getElementById("move-slot");
  if (moveSlot) moveSlot.addEventListener("change", function () { moveSlot.form.submit(); });
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (!window.confirm(form.dataset.confirm)) ev.preventDefault();
    });
  });
  /* A result entered by hand for a table that is online and still playing (its Pi is fine, only slow)
     hid its play on the overview ("done") and refused its real result later: asked first. Before the
     post-once guard below, so that "no" leaves the form free. */
  const handForm = document.getElementById("hand-form");
  if (handForm) {
    handForm.addEventListener("submit", function (ev) {
      const opt = handForm.elements.namedItem("slot").selectedOptions[0];
      const deal = opt && opt.dataset.playing;
      if (deal && !window.confirm(opt.dataset.table + " 号桌在线，正在打第 " + deal + " 副。仍要录入成绩吗？ / Table " +
                                  opt.dataset.table + " is online, playing deal " + deal + ". Enter a result anyway?")) {
        ev.preventDefault();
      }
    });
  }
  /* A form posts once: a double tap on 编排, 公布, 录入, 申诉 or 发给各桌 sent it twice (two draws, two
     appeals, the deck twice to every table). The page reloads with the answer; until then a second
     submit is dropped (buttons are not disabled: a disabled submit button would drop its own value). */
  document.querySelectorAll('form[method="post"]').forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (ev.defaultPrevented) return;  // a confirm answered "no"
      if (form.dataset.sending === "1") { ev.preventDefault(); return; }
      form.dataset.sending = "1";
      form.classList.add("sending");
      keep(form);
    });
  });

  /* What a form held when it was sent, kept in this tab until the hub says it was done: a refusal
     (a typo in a score) or an ended login (the login page brings the chief back here) used to give
     a blank form again — the chosen table back to the first, an appeal's text lost. */
  const KEPT = "hub-admin-form", KEPT_MS = 30 * 60 * 1000;
  function keep(form) {
    if (!form.id) return;
    const fields = {}, hidden = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      // A file chosen cannot be put back (the browser allows no script to choose one); what was
      // typed or pasted beside it can (the import's 500 pasted lines, lost on any refusal).
      if (!el.name || el.name === "csrf_token" || el.type === "submit" || el.type === "file") return;
      (el.type === "hidden" ? hidden : fields)[el.name] = el.value;
    });
    // A file's form with nothing typed (the deck's): nothing to put back, nothing to say.
    if (form.enctype === "multipart/form-data" && !Object.keys(fields).some(function (k) { return fields[k]; })) return;
    try { sessionStorage.setItem(KEPT, JSON.stringify({form: form.id, fields: fields, hidden: hidden, at: Date.now()})); } catch (e) { /* private mode */ }
  }
  function putBack() {
    let kept = null;
    try { kept = JSON.parse(sessionStorage.getItem(KEPT) || "null"); } catch (e) { kept = null; }
    if (document.getElementById("flash-ok")) kept = null;  // the hub did it: nothing to put back
    try { sessionStorage.removeItem(KEPT); } catch (e) { /* private mode */ }
    if (!kept || Date.now() - kept.at > KEPT_MS) return;
    const form = document.getElementById(kept.form);
    if (!form) return;
    Object.keys(kept.fields).forEach(function (name) {
      const el = form.elements.namedItem(name);
      if (el && "value" in el && el.type !== "file") {
        if (el.dataset && el.dataset.rounds) choose(el, kept.fields[name]); else el.value = kept.fields[name];
        el.dispatchEvent(new Event("change", {bubbles: true}));
      }
    });
    // Last, and without a change event: what the form was sent against (a correction's basis, an
    // edit's "seen"), so the values typed against it are never sent against a newer result unseen;
    // the hub refuses them again until the table is picked afresh (the review of 2026-12-06).
    Object.keys(kept.hidden || {}).forEach(function (name) {
      const el = form.elements.namedItem(name);
      if (el && el.type === "hidden") el.value = kept.hidden[name];
    });
    form.dispatchEvent(new Event("kept"));  // a form shown on demand (the withdrawal's) shows itself
    const note = document.createElement("p");
    note.className = "flash kept";
    note.id = "form-kept";
    note.textContent = "已恢复刚才填写的内容，请核对后再提交 / what you entered is back: check it and send again";
    form.insertBefore(note, form.firstChild);
    form.scrollIntoView({block: "center"});
  }
  /* Back to a page kept in the browser's cache (the back button): its forms may post again. */
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-sending]").forEach(function (f) { delete f.dataset.sending; f.classList.remove("sending"); });
  });

  const slot = document.getElementById("appeal-slot");
  const team = document.getElementById("appeal-team");
  if (slot && team) {
    function tieTeams() {
      const opt = slot.options[slot.selectedIndex];
      if (!opt || !opt.dataset.ns) return;
      const here = [opt.dataset.ns, opt.dataset.ew];
      Array.prototype.forEach.call(team.options, function (o) {
        const playing = here.indexOf(o.value) >= 0;
        o.hidden = !playing;
        o.disabled = !playing;
      });
      if (here.indexOf(team.value) < 0) team.value = here[0];
    }
    slot.addEventListener("change", tieTeams);
    tieTeams();
  }

  const cslot = document.getElementById("correct-slot");
  if (cslot) {
    const fields = {"correct-basis": "basis", "correct-ns": "nsLevels", "correct-ew": "ewLevels",
                    "correct-forfeit": "forfeit", "correct-ns-score": "nsScore", "correct-ew-score": "ewScore"};
    function prefill() {
      const opt = cslot.options[cslot.selectedIndex];
      if (!opt || opt.dataset.basis === undefined) return;
      Object.keys(fields).forEach(function (id) {
        const el = document.getElementById(id);
        if (el) el.value = opt.dataset[fields[id]] || "";
      });
    }
    const csettles = document.getElementById("correct-settles");
    cslot.addEventListener("change", prefill);
    // Another table chosen by hand: the refused result the form was filled from is not this one's.
    cslot.addEventListener("change", function () { if (csettles) csettles.value = ""; });
    prefill();  // also after the browser restored the form's choice on a reload
    // A refused result of a table that already has one: its values, turned to the draw's sides,
    // over the current result's basis (what a correction names), the reason started for the referee.
    document.querySelectorAll("button.refused-to-correct").forEach(function (b) {
      b.addEventListener("click", function () {
        choose(cslot, b.dataset.slot);
        cslot.dispatchEvent(new Event("change"));  // prefill, and the round chooser follows
        const d = b.dataset;
        if (csettles) csettles.value = d.refusal;  // the chief's 更正 clears this refusal with it
        putOnDrawSides(d, "correct-");
        const reason = document.getElementById("correct-reason");
        if (reason && !reason.value) reason.value = "采用桌上发来的成绩（拒收 #" + d.refusal + "）/ the table's own result (refused #" + d.refusal + ")";
        const form = document.getElementById("correct-form");
        form.scrollIntoView({block: "start"});
        form.classList.add("blink");
      });
    });
    document.querySelectorAll("button.to-correct").forEach(function (b) {
      b.addEventListener("click", function () {
        choose(cslot, b.dataset.slot);
        cslot.dispatchEvent(new Event("change"));
        const form = document.getElementById("correct-form");
        form.scrollIntoView({block: "start"});
        const reason = document.getElementById("correct-reason");
        if (reason) reason.focus();
      });
    });
  }

  const teamId = document.getElementById("team-id");
  if (teamId) {
    teamId.addEventListener("change", function () {
      const opt = teamId.options[teamId.selectedIndex];
      if (!opt) return;
      document.getElementById("team-name").value = opt.dataset.name || "";
      document.getElementById("team-players").value = opt.dataset.players || "";
    });
  }

  const hslot = document.getElementById("hand-slot");
  const hsettles = document.getElementById("hand-settles");
  if (hslot && hsettles) hslot.addEventListener("change", function () { hsettles.value = ""; });
  document.querySelectorAll("button.use-refused").forEach(function (b) {
    b.addEventListener("click", function () {
      if (!hslot) return;
      hslot.value = b.dataset.slot;
      if (hsettles) hsettles.value = b.dataset.refusal || "";  // the chief's 录入 clears this refusal with it
      putOnDrawSides(b.dataset, "hand-");
      const form = document.getElementById("hand-form");
      if (form) { form.scrollIntoView({block: "start"}); form.classList.add("blink"); }
    });
  });

  /* A list grouped by round (optgroup data-round) gets a round chooser, in a label of its own before
     the list's: choosing a round chooses the same table number in it (else its first table), and the
     chooser follows the list whatever chose its table (a tap, a button, a form put back). */
  function roundOf(opt) { return opt ? opt.value.split("|")[0] : ""; }
  function roundChooser(sel) {
    const tpl = roundsOf(sel);
    const groups = Array.prototype.slice.call(sel.querySelectorAll("optgroup[data-round]")).concat(
      tpl ? Array.prototype.slice.call(tpl.content.querySelectorAll("optgroup[data-round]")) : []);
    if (groups.length < 2) return null;
    const pick = document.createElement("select");
    pick.id = sel.id + "-round";
    Array.prototype.forEach.call(groups, function (g) { pick.add(new Option(g.label, g.dataset.round)); });
    const label = document.createElement("label");
    label.append("轮 / round ", pick);
    const own = sel.closest("label") || sel;
    own.parentNode.insertBefore(label, own);
    pick.value = roundOf(sel.selectedOptions[0]);
    pick.addEventListener("change", function () {
      showRound(sel, pick.value);
      const group = sel.querySelector('optgroup[data-round="' + pick.value + '"]');
      if (!group || !group.querySelector("option")) return;
      const table = (sel.value.split("|")[1]) || "";
      const same = Array.prototype.filter.call(group.querySelectorAll("option"), function (o) {
        return o.value.split("|")[1] === table; })[0];
      sel.value = (same || group.querySelector("option")).value;
      sel.dispatchEvent(new Event("change"));
    });
    sel.addEventListener("change", function () { pick.value = roundOf(sel.selectedOptions[0]); });
    return pick;
  }
  /* A long table list (a 500-table event: 500 options, a correction list growing by 500 a round)
     gets a table-number box beside it: typing a table's number chooses it (in the round chosen beside
     it, else its latest round). */
  const JUMP_FROM = 12;
  ["hand-slot", "correct-slot", "appeal-slot"].forEach(function (id) {
    const sel = document.getElementById(id);
    if (!sel) return;
    const inRound = roundChooser(sel);
    const rounds = roundsOf(sel);
    if (sel.options.length + (rounds ? rounds.content.querySelectorAll("option").length : 0) <= JUMP_FROM) return;
    const box = document.createElement("input");
    box.type = "text";
    box.id = id + "-jump";
    box.setAttribute("inputmode", "numeric");
    box.setAttribute("aria-label", "桌号 / table no.");
    box.placeholder = "桌号 / table no.";
    box.size = 8;
    box.addEventListener("input", function () {
      const want = box.value.trim();
      let best = null, bestRound = -1;
      Array.prototype.forEach.call(sel.options, function (opt) {
        const parts = opt.value.split("|");
        if (inRound && parts[0] !== inRound.value) return;
        if (parts.length === 2 && parts[1] === want && Number(parts[0]) > bestRound) {
          best = opt; bestRound = Number(parts[0]);
        }
      });
      box.classList.toggle("nomatch", want !== "" && !best);
      if (best && sel.value !== best.value) {
        sel.value = best.value;
        sel.dispatchEvent(new Event("change"));
      }
    });
    sel.parentNode.insertBefore(box, sel);
    if (inRound) inRound.addEventListener("change", function () {  // the number typed, in the round chosen
      if (box.value.trim()) box.dispatchEvent(new Event("input"));
    });
  });
  /* 400 teams: the teams list and the team-edit list each get a find box (team id, name or a player;
     letters in any case): the list keeps the teams that match, and the edit form takes the first of
     them when the team it held is not one (a withdrawal of T100 was a scroll through 400 rows, its
     edit a 400-option list). */
  function teamText(el) {  // a row's id, name and players cells; an option's id, name and players
    const parts = el.cells ? Array.prototype.slice.call(el.cells, 0, 3).map(function (c) { return c.textContent; })
                           : [el.value, el.dataset.name || "", el.dataset.players || ""];
    return parts.join(" ").toLowerCase();
  }
  function findBox(id, label, before, keep) {
    const box = document.createElement("input");
    box.type = "search";
    box.id = id;
    box.setAttribute("aria-label", label);
    box.placeholder = label;
    box.size = 24;
    const said = document.createElement("span");
    said.className = "muted";
    said.id = id + "-count";
    said.setAttribute("role", "status");
    box.addEventListener("input", function () {
      const want = box.value.trim().toLowerCase();
      const n = keep(want);
      box.classList.toggle("nomatch", want !== "" && n === 0);
      said.textContent = want === "" ? "" : " " + n + " 队 / " + n + " team(s)";
    });
    const wrap = document.createElement("p");
    wrap.className = "team-find";
    wrap.append(box, said);
    before.parentNode.insertBefore(wrap, before);
    return box;
  }
  const teamsTable = document.getElementById("teams-table");
  if (teamsTable && teamsTable.tBodies[0] && teamsTable.tBodies[0].rows.length > JUMP_FROM) {
    findBox("teams-find", "找队：队号、队名或选手 / find a team: id, name or player", teamsTable, function (want) {
      let n = 0;
      Array.prototype.forEach.call(teamsTable.tBodies[0].rows, function (row) {
        row.hidden = want !== "" && teamText(row).indexOf(want) < 0;
        if (!row.hidden) n += 1;
      });
      return n;
    });
  }
  if (teamId && teamId.options.length > JUMP_FROM) {
    findBox("team-id-find", "找队：队号、队名或选手 / find a team: id, name or player", teamId.closest("label") || teamId,
            function (want) {
      let n = 0, first = null;
      Array.prototype.forEach.call(teamId.options, function (opt) {
        opt.hidden = want !== "" && teamText(opt).indexOf(want) < 0;
        if (!opt.hidden) { n += 1; if (!first) first = opt; }
      });
      const cur = teamId.options[teamId.selectedIndex];
      if (first && (!cur || cur.hidden)) {
        teamId.value = first.value;
        teamId.dispatchEvent(new Event("change"));  // the form holds the team found
      }
      return n;
    });
  }
  /* The page is drawn once: results, appeals and refusals that arrive later were not on it (a 公布成绩
     button stayed hidden for minutes). The hub's log is asked every 5 s; a newer event is said at the
     top, with a reload that keeps what a form holds (the form last typed into comes back). */
  const admin = document.getElementById("admin");
  const changed = document.getElementById("admin-changed");
  let typedIn = null;
  document.addEventListener("input", function (ev) { if (ev.target.form) typedIn = ev.target.form; });
  if (admin && changed) {
    const seen = Number(admin.dataset.seen || 0);
    document.getElementById("admin-reload").addEventListener("click", function () {
      if (typedIn) keep(typedIn);
      window.location.reload();
    });
    (function poll() {
      // The log's last seq alone (a few bytes, 304 while unchanged), not the whole overview.
      fetch("/hub/api/last-seq", {headers: {Accept: "application/json"}, credentials: "same-origin"})
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (log) { if (log && Number(log.last_seq) > seen) changed.hidden = false; })
        .catch(function () { /* the next poll */ })
        .then(function () { if (changed.hidden) setTimeout(poll, 5000); });
    })();
  }
  putBack();  // last: after every form's own first fill (a correction's chosen result, a team's players)
})();
