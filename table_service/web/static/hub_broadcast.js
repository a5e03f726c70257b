// 直播 / Broadcast page: a tap copies a table's overlay or feed address (for OBS). The page is
// plain HTTP on the venue network, where navigator.clipboard is not offered: then the address is
// copied through a selected text field, and left selected for a long press if that fails too.
(function () {
  "use strict";
  function copied(btn, ok) {
    var was = btn.textContent;
    btn.textContent = ok ? "已复制 / Copied" : "请长按复制 / Press and hold to copy";
    setTimeout(function () { btn.textContent = was; }, 1500);
  }
  function fallback(btn, text) {
    var field = document.createElement("textarea");
    field.value = text;
    field.setAttribute("readonly", "");
    field.className = "copy-field";
    btn.parentNode.insertBefore(field, btn.nextSibling);
    field.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    if (ok) field.parentNode.removeChild(field);
    copied(btn, ok);
  }
  document.addEventListener("click", function (e) {
    var btn = e.target.closest && e.target.closest("button.copy");
    if (!btn) return;
    var text = btn.dataset.copy;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { copied(btn, true); },
                                               function () { fallback(btn, text); });
    } else {
      fallback(btn, text);
    }
  });
})();
