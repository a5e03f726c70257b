/* The chief referee's accounts page: asks before removing an account, making a chief, or sending a
   chief to every table as an event account (the hub's page), and checks that a new password was
   typed the same twice (the server checks everything again). */
(function () {
  "use strict";
  const t = window.GT ? window.GT.t : function (k) { return k; };

  function ask(key, name) { return window.confirm(t(key).replace("{name}", name)); }

  document.addEventListener("submit", function (e) {
    const form = e.target;
    if (!form.classList || !form.classList.contains("acc-form")) return;
    if (form.classList.contains("remove") && !ask("acc_confirm_remove", form.dataset.name)) {
      e.preventDefault();
      return;
    }
    if (form.classList.contains("set-event") && form.dataset.role === "chief" &&
        form.querySelector("input[name=event]").value === "1" && !ask("acc_confirm_event_chief", form.dataset.name)) {
      e.preventDefault();
      return;
    }
    if (form.classList.contains("set-role")) {
      const role = form.querySelector("select[name=role]");
      if (role && role.value === "chief" && !ask("acc_confirm_chief", form.dataset.name)) {
        e.preventDefault();
        return;
      }
    }
    const pw = form.querySelector("input.pw"), pw2 = form.querySelector("input.pw2");
    if (pw && pw2 && pw.value !== pw2.value) {
      e.preventDefault();
      pw2.setCustomValidity(t("acc_pw_mismatch"));
      pw2.reportValidity();
    }
  }, true);

  document.addEventListener("input", function (e) {
    if (e.target.classList && e.target.classList.contains("pw2")) e.target.setCustomValidity("");
    if (e.target.classList && e.target.classList.contains("pw")) {
      const other = e.target.form && e.target.form.querySelector("input.pw2");
      if (other) other.setCustomValidity("");
    }
  });
})();
