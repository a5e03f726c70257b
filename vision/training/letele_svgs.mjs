// Write @letele/playing-cards' cards out as one SVG file each (training variety; never at run time).
//
// Why: the package ships Adrian Kennard's deck only as compiled React components (SVGR output:
// React.createElement calls with camelCase attribute names). Evaluating them with a React stand-in
// that prints SVG text gives the same per-card SVG files the other npm decks ship, so
// vision/training/svg_decks.py renders all of them one way.
//
//   node vision/training/letele_svgs.mjs PACKAGE/dist/index.esm.js OUT_DIR
//
// Files are named as svg_decks.py reads them: rank then suit letter ("10H.svg", "QS.svg"); the red
// joker is "BJ.svg" and the black one "SJ.svg"; the card backs are left out.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const [src, out] = process.argv.slice(2);
if (!src || !out) {
  console.error("usage: node letele_svgs.mjs PACKAGE/dist/index.esm.js OUT_DIR");
  process.exit(2);
}

// SVG attributes whose own name is camelCase; every other camelCase React prop is kebab-case in SVG.
const CAMEL = new Set(["viewBox", "preserveAspectRatio", "patternUnits", "patternTransform", "gradientUnits",
  "gradientTransform", "clipPathUnits", "maskUnits", "stdDeviation"]);
const RENAMED = { className: "class", xlinkHref: "xlink:href", xmlnsXlink: "xmlns:xlink", xmlSpace: "xml:space" };

const esc = (v) => String(v).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
const attrName = (k) => RENAMED[k] ?? (CAMEL.has(k) ? k : k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()));

// Markup is kept apart from text, so that only text children are escaped.
class Markup { constructor(s) { this.s = s; } toString() { return this.s; } }

const React = {
  createElement(tag, props, ...children) {
    const attrs = Object.entries(props ?? {})
      .filter(([k, v]) => v !== undefined && v !== null && !k.startsWith("aria-"))
      .map(([k, v]) => ` ${attrName(k)}="${esc(v)}"`).join("");
    const inner = children.flat().filter((c) => c !== null && c !== undefined && c !== false)
      .map((c) => (c instanceof Markup ? c.s : esc(c))).join("");
    return new Markup(`<${tag}${attrs}>${inner}</${tag}>`);
  },
};

// The module's two imports are replaced by the stand-ins; its export list becomes a returned object.
let code = readFileSync(src, "utf8")
  .replace(/^import .*$/gm, "")
  .replace(/export \{([^}]*)\};?\s*$/, (_, list) => "return {" + list.replace(/(\w+) as (\w+)/g, "$2: $1") + "};");
const components = new Function("React", "_extends", code)(React, Object.assign);

mkdirSync(out, { recursive: true });
let n = 0;
for (const [name, component] of Object.entries(components)) {
  let file;
  if (name === "J1") file = "BJ";
  else if (name === "J2") file = "SJ";
  else if (/^[SHDC](10|[2-9AJQK])$/i.test(name)) file = name.slice(1).toUpperCase() + name[0];
  else continue;  // card backs
  writeFileSync(join(out, file + ".svg"), String(component({})));
  n += 1;
}
console.log(`${n} cards written to ${out}`);
