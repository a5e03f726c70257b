/* The organiser page's forms that undo something for every table ask first (data-confirm): the
   Content-Security-Policy allows no inline handler, so the question is asked from here. */
(function () {
  "use strict";
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (!window.confirm(form.dataset.confirm)) ev.preventDefault();
    });
  });
})();
