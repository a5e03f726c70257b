/* The record page in the other language at once, as the main panel is (its language button only set
   the cookie here, and the page changed at the next reload). The record's words (each event in words,
   its details with who sits where, the table's refusals) are said by the server (web/record.py), so the
   page reads itself again in the language just chosen and puts the new record in place of the old:
   nothing is translated twice, and the rows are the newest. */
(function () {
  "use strict";
  GT.rerender = async function () {
    const lang = window.LANG;
    let doc;
    try {
      const resp = await fetch(location.href, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } });
      if (!resp.ok) return;
      doc = new DOMParser().parseFromString(await resp.text(), "text/html");
    } catch (e) {
      return;  // offline: the page stays as it was; the cookie says the new language at the next load
    }
    const fresh = doc.querySelector("section.record");
    const shown = document.querySelector("section.record");
    // No record in the answer (the login ended: the login page), or the button tapped again meanwhile.
    if (!fresh || !shown || window.LANG !== lang) return;
    shown.replaceWith(document.importNode(fresh, true));
    document.title = doc.title;
  };
})();
