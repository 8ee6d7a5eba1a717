// What the reader does (after engine.js and view.js), the same on every page: evidence
// (a click on a state, a number typed or slid, a likelihood's sliders), the status line,
// the side panel, the URL fragment, zoom, pan, fit and search; then the page starts.
let evidence = {};  // variable index -> state index
let numeric = {};  // a number's index -> its observed value
let soft = {};  // variable index -> likelihood: one non-negative weight per state (not all 0)
let message = "";
let showMap = false;
const panel = document.getElementById("why");
const mapButton = document.getElementById("map");
if (!S.panel) panel.style.display = "none";
if (!S.map) mapButton.style.display = "none";

const boxes = V.map((v, i) => (isNumber(i)
  ? numberBox(v, i, setNumber, j => { delete numeric[j]; changed(); })
  : stateBox(v, i, toggle)));
// the marginals without evidence: each bar's thin grey line, each tooltip's "prior ->"
const PRIOR = infer({}, {}, {});
// a joint table's total, for tools and tests (its rows' probabilities sum to one)
if (S.joint) document.body.dataset.jointTotal = String(sum(S.joint.p));

function chip(text, cls, title, onClick) {
  const s = document.createElement("span"); s.className = cls; s.textContent = text;
  s.title = title; s.addEventListener("click", onClick);
  status.appendChild(s);
}
const weights = w => "[" + w.map(x => +x.toPrecision(3)).join(", ") + "]";
function render() {
  const r = infer(evidence);
  const best = showMap ? mapQuery(evidence) : null;
  drawMarginals(boxes, r, PRIOR, evidence, numeric, soft, best);
  if (best) {
    const named = {};
    V.forEach((v, i) => { if (!(i in evidence)) named[v.name] = v.states[best.state[i]]; });
    status.dataset.map = JSON.stringify(named);
    status.dataset.mapLogProb = String(best.logp);
  } else { delete status.dataset.map; delete status.dataset.mapLogProb; }
  const named = {}, likelihoods = {};
  for (const i in evidence) named[V[i].name] = V[i].states[evidence[i]];
  for (const i in numeric) named[V[i].name] = numeric[i];
  for (const i in soft) likelihoods[V[i].name] = soft[i];
  status.dataset.evidence = JSON.stringify(named);
  status.dataset.soft = JSON.stringify(likelihoods);
  status.dataset.logEvidence = String(r.logZ);
  status.innerHTML = "<h1></h1>";
  status.firstChild.textContent = S.title;
  if (S.edge_labels.length) {
    const sel = document.createElement("select");
    S.edge_labels.forEach((l, j) => {
      const o = document.createElement("option"); o.value = j;
      o.textContent = "tree of " + V[S.cond].name + " = " + l; sel.appendChild(o);
    });
    sel.value = shownEdges;
    sel.addEventListener("change", () => { shownEdges = +sel.value; drawEdges(); });
    status.appendChild(sel);
    status.appendChild(document.createTextNode(" "));
  }
  const keys = Object.keys(evidence), softKeys = Object.keys(soft), numKeys = Object.keys(numeric);
  const any = keys.length || softKeys.length || numKeys.length;
  if (!any && K.some(k => k > 0)) status.appendChild(document.createTextNode("click a state to set evidence"));
  for (const i of keys) {
    chip(V[i].name + " = " + V[i].states[evidence[i]] + " \u00d7", "ev", "clear", () => toggle(+i, evidence[i]));
  }
  for (const i of softKeys) {
    chip(V[i].name + " ~ " + weights(soft[i]) + " \u00d7", "ev soft", "clear this likelihood",
         () => { delete soft[+i]; changed(); });
  }
  for (const i of numKeys) {
    chip(V[i].name + " = " + num(numeric[i]) + " \u00d7", "ev", "clear", () => { delete numeric[+i]; changed(); });
  }
  if (any) {
    const b = document.createElement("button"); b.textContent = "clear all";
    b.addEventListener("click", () => { evidence = {}; soft = {}; numeric = {}; changed(); });
    status.appendChild(b);
    const pe = document.createElement("span"); pe.className = "pe";
    // with numbers observed, a density (nats): its log
    pe.textContent = numKeys.length ? "log density of the evidence = " + r.logZ.toFixed(4)
      : "P(evidence) = " + Math.exp(r.logZ).toPrecision(4);
    status.appendChild(pe);
  }
  if (classMarked.size) {
    const s = document.createElement("span"); s.className = "pe";
    s.innerHTML = '<span class="mark"></span>'; s.appendChild(document.createTextNode(
      "the class " + V[MARKER].name + " is also a parent of these"));
    status.appendChild(s);
  }
  if (message) {
    const s = document.createElement("span"); s.className = "msg"; s.textContent = message;
    status.appendChild(s);
  }
  if (S.panel) renderWhy();
}

// ---------------------------------------------------------------- the side panel
// the target's log-odds explained by the evidence, what to ask next, a likelihood's sliders
let target = S.target >= 0 ? S.target : (S.cond >= 0 ? S.cond : 0);
let softVar = 0;
function bars(title, items, scale) {
  const list = document.createElement("div"); list.className = "list";
  const h = document.createElement("h2"); h.textContent = title; list.appendChild(h);
  const top = Math.max(1e-12, ...items.map(([, x]) => Math.abs(x)));
  for (const [i, x] of items) {
    const row = document.createElement("div"); row.className = "item";
    row.dataset.item = V[i].name; row.dataset.value = String(x);
    row.innerHTML = '<span class="lab"></span><span class="bar"><i></i></span><span class="num"></span>';
    row.firstChild.textContent = V[i].name + (i in evidence ? " = " + V[i].states[evidence[i]]
      : i in soft ? " ~ " + weights(soft[i]) : "");
    const bar = row.querySelector("i");
    bar.style.width = (50 * Math.abs(x) / top) + "%";
    bar.style.marginLeft = scale === "signed" ? (x >= 0 ? "50%" : (50 - 50 * Math.abs(x) / top) + "%") : "0";
    bar.className = x >= 0 ? "up" : "down";
    row.querySelector(".num").textContent = (scale === "signed" && x >= 0 ? "+" : "") + x.toFixed(3);
    list.appendChild(row);
  }
  return list;
}
function chooser(id, value, onChange) {
  const sel = document.createElement("select"); sel.id = id;
  V.forEach((v, i) => { const o = document.createElement("option"); o.value = i; o.textContent = v.name; sel.appendChild(o); });
  sel.value = value;
  sel.addEventListener("change", () => { onChange(+sel.value); renderWhy(); });
  return sel;
}
function renderWhy() {
  panel.innerHTML = "";
  const head = document.createElement("div"); head.textContent = "target ";
  head.appendChild(chooser("target", target, i => { target = i; })); panel.appendChild(head);
  const w = why(evidence, target);
  if (w && w.items.length) {
    const t = V[target].states[w.state];
    const list = bars("why " + V[target].name + " = " + t + " (log-odds " + w.base.toFixed(3) + " \u2192 " +
                      w.value.toFixed(3) + (w.exact ? ", Shapley" : ", chain rule") + ")", w.items, "signed");
    list.id = "contributions";
    Object.assign(list.dataset, { target: V[target].name, state: t, base: String(w.base),
                                  prediction: String(w.value), method: w.exact ? "shapley" : "chain" });
    panel.appendChild(list);
  } else {
    const n = document.createElement("p"); n.className = "note";
    n.textContent = target in evidence ? "the target is observed" : "set evidence to see why";
    panel.appendChild(n);
  }
  const next = bars("ask next (expected information, nats)", askNext(evidence, target).slice(0, 8), "plain");
  next.id = "ask-next"; panel.appendChild(next);
  // soft evidence: a likelihood per state of one variable, one slider each (0 to 1)
  const box = document.createElement("div"); box.id = "soft-evidence";
  const h = document.createElement("h2"); h.textContent = "soft evidence (likelihood) on ";
  h.appendChild(chooser("soft-variable", softVar, i => { softVar = i; })); box.appendChild(h);
  const now = softVar in soft ? soft[softVar] : new Array(K[softVar]).fill(1);
  const sliders = V[softVar].states.map((st, x) => {
    const row = document.createElement("label"); row.className = "slider";
    const lab = document.createElement("span"); lab.textContent = st;
    const input = document.createElement("input");
    Object.assign(input, { type: "range", min: "0", max: "1", step: "0.01" });
    input.value = String(now[x]); input.dataset.state = st;
    // on release: the page is redrawn, which would end a drag that was still going on
    input.addEventListener("change", () => setSoft(softVar, sliders.map(s => +s.value)));
    row.appendChild(lab); row.appendChild(input); box.appendChild(row);
    return input;
  });
  panel.appendChild(box);
}

// ---------------------------------------------------------------- evidence
function changed() {
  message = "";
  try { history.replaceState(null, "", fragment() || location.pathname + location.search); } catch (e) { /* file: pages may refuse */ }
  render();
}
function refuse(text) { message = text; render(); }
function toggle(i, x) {
  const next = Object.assign({}, evidence);
  if (next[i] === x) delete next[i]; else next[i] = x;
  const rest = Object.assign({}, soft);
  if (i in next) delete rest[i];  // a state replaces the variable's likelihood
  if (!infer(next, rest)) return refuse(V[i].name + " = " + V[i].states[x] + " is impossible with this evidence");
  evidence = next; soft = rest; changed();
}
function setSoft(i, w) {
  if (!w.some(x => x > 0)) return refuse("a likelihood needs a weight above 0");
  const next = Object.assign({}, soft); next[i] = w;
  const hard = Object.assign({}, evidence); delete hard[i];
  if (!infer(hard, next)) return refuse("this likelihood on " + V[i].name + " is impossible with this evidence");
  soft = next; evidence = hard; changed();
}
// a number typed or slid: the value, or null when it is no finite number
function readNumber(text) {
  const x = Number(text);
  return text === "" || !Number.isFinite(x) ? null : x;
}
function setNumber(i, text) {
  const x = readNumber(text);
  if (x === null) return refuse(V[i].name + " takes a number, not \u201c" + text + "\u201d");
  const next = Object.assign({}, numeric); next[i] = x;
  if (!infer(evidence, soft, next)) return refuse(V[i].name + " = " + x + " is impossible with this evidence");
  numeric = next; changed();
}

// ---------------------------------------------------------------- the URL fragment
// "#evidence=var:state,var:number&soft=var:w0|w1|..." (names and states percent-encoded)
function fragment() {
  const items = Object.keys(evidence).map(i =>
    encodeURIComponent(V[i].name) + ":" + encodeURIComponent(V[i].states[evidence[i]])).concat(
    Object.keys(numeric).map(i => encodeURIComponent(V[i].name) + ":" + String(numeric[i])));
  const likelihoods = Object.keys(soft).map(i =>
    encodeURIComponent(V[i].name) + ":" + soft[i].map(String).join("|"));
  const parts = [];
  if (items.length) parts.push("evidence=" + items.join(","));
  if (likelihoods.length) parts.push("soft=" + likelihoods.join(","));
  return parts.length ? "#" + parts.join("&") : "";
}
function fragmentPart(hash, key) {
  const part = hash.replace(/^#/, "").split("&").find(p => p.startsWith(key + "="));
  return part ? part.slice(key.length + 1).split(",").filter(x => x) : [];
}
// evidence: a ":" inside a name is found by trying every split against the model's names
function parse(hash) {
  const out = {}, bad = [], nums = {};
  for (const item of fragmentPart(hash, "evidence")) {
    let found = false;
    for (let at = item.indexOf(":"); at >= 0 && !found; at = item.indexOf(":", at + 1)) {
      let name, state;
      try { name = decodeURIComponent(item.slice(0, at)); state = decodeURIComponent(item.slice(at + 1)); }
      catch (e) { continue; }
      const i = V.findIndex(v => v.name === name);
      if (i < 0) continue;
      if (isNumber(i)) {
        const y = readNumber(state);
        if (y !== null) { nums[i] = y; found = true; }
        continue;
      }
      const x = V[i].states.indexOf(state);
      if (x >= 0) { out[i] = x; found = true; }
    }
    if (!found) bad.push(item);
  }
  return [out, bad, nums];
}
// likelihoods: one non-negative weight per state, not all zero (a variable given a state
// keeps the state)
function parseSoft(hash, ev, bad) {
  const out = {};
  for (const item of fragmentPart(hash, "soft")) {
    const at = item.lastIndexOf(":");
    let name = null;
    try { name = decodeURIComponent(item.slice(0, at)); } catch (e) { /* bad escape */ }
    const i = at < 0 ? -1 : V.findIndex(v => v.name === name);
    const w = at < 0 ? [] : item.slice(at + 1).split("|").map(Number);
    if (i < 0 || i in ev || w.length !== K[i] || !w.every(x => Number.isFinite(x) && x >= 0) ||
        !w.some(x => x > 0)) { bad.push(item); continue; }
    out[i] = w;
  }
  return out;
}
function load() {
  let [ev, bad, nums] = parse(location.hash);
  if (!location.hash) {
    ev = {}; nums = {};
    for (const [name, state] of Object.entries(S.evidence)) {
      const i = V.findIndex(v => v.name === name);
      if (isNumber(i)) nums[i] = state; else ev[i] = V[i].states.indexOf(state);
    }
  }
  let sf = parseSoft(location.hash, ev, bad);
  if (S.soft !== true && Object.keys(sf).length) { bad.push("soft evidence (" + S.soft + ")"); sf = {}; }
  if (!infer(ev, sf, nums)) { bad.push("the evidence has probability zero"); ev = {}; sf = {}; nums = {}; }
  evidence = ev; soft = sf; numeric = nums;
  message = bad.length ? "ignored: " + bad.join(", ") : "";
  render();
}
mapButton.addEventListener("click", e => { showMap = !showMap; e.target.classList.toggle("on", showMap); render(); });

// ---------------------------------------------------------------- zoom, pan, fit, search
// the drawing is moved by one transform, translate(tx, ty) scale(s), of #canvas in #view;
// #view carries data-scale, data-tx, data-ty
const view = { s: 1, tx: 0, ty: 0, auto: true };
const tools = document.getElementById("tools");
function usable() {  // the part of the window the side panel and the tools do not cover
  const w = viewBox.clientWidth, h = viewBox.clientHeight;
  const cover = S.panel && w > 700 ? panel.offsetWidth + 20 : 0;
  return [Math.max(w - cover, 50), Math.max(h - tools.offsetHeight - 20, 50)];
}
function place() {
  canvas.style.transform = "translate(" + view.tx + "px, " + view.ty + "px) scale(" + view.s + ")";
  Object.assign(viewBox.dataset, { scale: String(view.s), tx: String(view.tx), ty: String(view.ty) });
}
function fit() {
  const [w, h] = usable();
  view.s = Math.min(w / S.width, h / S.height, 2);
  view.tx = (w - S.width * view.s) / 2; view.ty = (h - S.height * view.s) / 2;
  view.auto = true; place();
}
function actualSize() {  // 1:1, centred across, from the top
  const [w] = usable();
  view.s = 1; view.tx = Math.max((w - S.width) / 2, 0); view.ty = 0; place();
}
function zoomAt(factor, cx, cy) {  // (cx, cy): the point of #view that stays put
  const s = Math.min(Math.max(view.s * factor, 0.05), 8);
  view.tx = cx - (cx - view.tx) * s / view.s; view.ty = cy - (cy - view.ty) * s / view.s;
  view.s = s; view.auto = false; place();
}
function centre(i) {  // variable i's box in the middle of the usable window
  const [w, h] = usable(), v = V[i];
  view.tx = w / 2 - (v.x + v.w / 2) * view.s; view.ty = h / 2 - (v.y + v.h / 2) * view.s;
  view.auto = false; place();
}
function matches(q) {  // the variables whose names contain q (any case); an exact name first
  q = q.trim().toLowerCase();
  if (!q) return [];
  const all = V.map((v, i) => i).filter(i => V[i].name.toLowerCase().includes(q));
  const exact = all.filter(i => V[i].name.toLowerCase() === q);
  return [...exact, ...all.filter(i => !exact.includes(i))];
}
function search(q, go) {
  const found = matches(q);
  boxes.forEach((d, i) => { d.classList.toggle("match", found.includes(i)); d.classList.remove("found"); });
  if (!go) return;
  if (!found.length) return refuse("no variable matches \u201c" + q + "\u201d");
  boxes[found[0]].classList.add("found");
  centre(found[0]);
}
const searchBox = document.getElementById("search");
V.forEach(v => { const o = document.createElement("option"); o.value = v.name;
                 document.getElementById("variable-names").appendChild(o); });
searchBox.addEventListener("input", () => search(searchBox.value, V.some(v => v.name === searchBox.value)));
searchBox.addEventListener("keydown", e => { if (e.key === "Enter") search(searchBox.value, true); });
const middle = () => { const [w, h] = usable(); return [w / 2, h / 2]; };
document.getElementById("zoom-in").addEventListener("click", () => zoomAt(1.25, ...middle()));
document.getElementById("zoom-out").addEventListener("click", () => zoomAt(0.8, ...middle()));
document.getElementById("fit").addEventListener("click", fit);
document.getElementById("actual").addEventListener("click", () => { actualSize(); view.auto = false; });
document.getElementById("edge-labels").addEventListener("change", e => svg.classList.toggle("labels", e.target.checked));
viewBox.addEventListener("wheel", e => {
  e.preventDefault();
  const r = viewBox.getBoundingClientRect();
  zoomAt(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
}, { passive: false });
let drag = null;  // a press on the background (not on a box) pans
viewBox.addEventListener("mousedown", e => {
  if (e.button !== 0 || e.target.closest(".var")) return;
  drag = [e.clientX, e.clientY, view.tx, view.ty]; viewBox.classList.add("dragging");
});
window.addEventListener("mousemove", e => {
  if (!drag) return;
  view.tx = drag[2] + e.clientX - drag[0]; view.ty = drag[3] + e.clientY - drag[1];
  view.auto = false; place();
});
window.addEventListener("mouseup", () => { drag = null; viewBox.classList.remove("dragging"); });
window.addEventListener("resize", () => { if (view.auto) fit(); });

window.addEventListener("hashchange", load);
drawEdges();
load();
// the whole drawing in the window when it is larger; else at its size, centred across
{ const [w, h] = usable(); if (S.width > w || S.height > h) fit(); else { actualSize(); view.auto = false; } }
