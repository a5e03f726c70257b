/* The organiser page's scripts (the Content-Security-Policy allows no inline handler):
   - forms that undo something for every table ask first (data-confirm);
   - the appeal form offers only the chosen table's two teams (each table option carries its
     data-ns / data-ew team ids): the hub refuses a team that did not play there. */
(function () {
  "use strict";
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (!window.confirm(form.dataset.confirm)) ev.preventDefault();
    });
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
})();
