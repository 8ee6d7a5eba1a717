// the Gaussian page: a linear-Gaussian tree, X_v = a_v + b_v X_parent + N(0, s2_v),
// conditioned exactly in the browser by two passes of Gaussian message passing; each box
// shows its posterior density (the prior as a grey curve) and takes a number as evidence
const G = S.components[0];
const KIDS = V.map(() => []);
G.parent.forEach((p, i) => { if (p >= 0) KIDS[p].push(i); });
let evidence = {};  // variable index -> observed number
let message = "";

// log p(evidence) (a density, nats) and every unobserved variable's posterior [mean, var]
// (an observed one: [value, 0]). Upward, each subtree's likelihood of its evidence as a
// function of the parent, exp(-J x^2 / 2 + h x + c); downward, each variable's distribution
// given the evidence outside its subtree (pm, pv), times its subtree's likelihood.
function gaussInfer(ev) {
  const J = new Array(N).fill(0), H = new Array(N).fill(0), C = new Array(N).fill(0);
  const mJ = new Array(N).fill(0), mH = new Array(N).fill(0);
  let logZ = 0;
  for (let o = G.order.length - 1; o >= 0; o--) {  // leaves to roots
    const v = G.order[o], g = V[v].gauss, p = G.parent[v];
    const a = g.a, b = p >= 0 ? g.b : 0, s2 = g.s2;
    let jm, hm, cm;
    if (v in ev) {  // N(y; a + b x, s2) times the subtree's likelihood at y
      const y = ev[v], r = y - a;
      jm = b * b / s2; hm = b * r / s2;
      cm = -r * r / (2 * s2) - 0.5 * Math.log(2 * Math.PI * s2) - 0.5 * J[v] * y * y + H[v] * y + C[v];
    } else {  // the integral over x_v of N(x_v; a + b x, s2) exp(-J x_v^2 / 2 + h x_v + c)
      const sp = 1 + s2 * J[v], k = J[v] / sp, q = H[v] / sp;
      jm = k * b * b; hm = b * (q - k * a);
      cm = C[v] + H[v] * H[v] * s2 / (2 * sp) - 0.5 * Math.log(sp) - 0.5 * k * a * a + q * a;
    }
    mJ[v] = jm; mH[v] = hm;
    if (p >= 0) { J[p] += jm; H[p] += hm; C[p] += cm; } else logZ += cm;
  }
  const pm = new Array(N), pv = new Array(N), post = new Array(N);
  for (const v of G.order) {  // roots to leaves
    const g = V[v].gauss, p = G.parent[v];
    if (p < 0) { pm[v] = g.a; pv[v] = g.s2; }
    else if (p in ev) { pm[v] = g.a + g.b * ev[p]; pv[v] = g.s2; }
    else {  // the parent given everything but v's subtree
      const jx = 1 / pv[p] + J[p] - mJ[v], hx = pm[p] / pv[p] + H[p] - mH[v];
      pm[v] = g.a + g.b * hx / jx; pv[v] = g.b * g.b / jx + g.s2;
    }
    if (v in ev) { post[v] = [ev[v], 0]; continue; }
    const prec = 1 / pv[v] + J[v];
    post[v] = [(pm[v] / pv[v] + H[v]) / prec, 1 / prec];
  }
  return { logZ: logZ, marg: post };
}

const PRIOR = gaussInfer({});
const one = ([m, v]) => ({ w: [1], m: [m], v: [v] });
V.forEach(v => {
  const i = V.indexOf(v), g = v.gauss;
  v.formula = v.name + " ~ N(" + num(g.a) + (G.parent[i] >= 0 ? " + " + num(g.b) + " \u00b7 " +
    V[G.parent[i]].name : "") + ", sd " + num(Math.sqrt(g.s2)) + ")";
});
const boxes = V.map((v, i) => densityBox(v, i, setValue, i => { delete evidence[i]; changed(); }));

function render() {
  const r = gaussInfer(evidence);
  V.forEach((v, i) => {
    const d = boxes[i];
    d.dataset.marginal = JSON.stringify(r.marg[i]);
    d.dataset.prior = JSON.stringify(PRIOR.marg[i]);
    d.classList.toggle("observed", i in evidence);
    drawDensity(d, v, one(r.marg[i]), one(PRIOR.marg[i]), i in evidence ? evidence[i] : undefined);
  });
  const named = {};
  for (const i in evidence) named[V[i].name] = evidence[i];
  status.dataset.evidence = JSON.stringify(named);
  status.dataset.logEvidence = String(r.logZ);
  status.innerHTML = "";
  const h1 = document.createElement("h1"); h1.textContent = S.title; status.appendChild(h1);
  for (const i in evidence) {
    const s = document.createElement("span"); s.className = "ev";
    s.textContent = V[i].name + " = " + num(evidence[i]) + " \u00d7"; s.title = "clear";
    s.addEventListener("click", () => { delete evidence[+i]; changed(); });
    status.appendChild(s);
  }
  if (Object.keys(evidence).length) {
    const b = document.createElement("button"); b.textContent = "clear all";
    b.addEventListener("click", () => { evidence = {}; changed(); });
    status.appendChild(b);
    const pe = document.createElement("span"); pe.className = "pe";
    pe.textContent = "log density of the evidence = " + r.logZ.toFixed(4);
    status.appendChild(pe);
  }
  if (message) {
    const s = document.createElement("span"); s.className = "msg"; s.textContent = message;
    status.appendChild(s);
  }
}

function setValue(i, text) {
  const x = readNumber(text);
  if (x === null) { message = V[i].name + " takes a number, not \u201c" + text + "\u201d"; render(); return; }
  evidence = Object.assign({}, evidence); evidence[i] = x; changed();
}
function fragment() {
  const items = Object.keys(evidence).map(i => encodeURIComponent(V[i].name) + ":" + String(evidence[i]));
  return items.length ? "#evidence=" + items.join(",") : "";
}
function changed() {
  message = "";
  const f = fragment();
  try { history.replaceState(null, "", f || location.pathname + location.search); } catch (e) { /* file: pages may refuse */ }
  render();
}
// "#evidence=var:number,var:number" (a ":" inside a name: the last one splits)
function parse(hash) {
  const out = {}, bad = [];
  const part = hash.replace(/^#/, "").split("&").find(p => p.startsWith("evidence="));
  if (!part) return [out, bad];
  for (const item of part.slice(9).split(",")) {
    if (!item) continue;
    const at = item.lastIndexOf(":");
    let name = null;
    try { name = decodeURIComponent(item.slice(0, at)); } catch (e) { /* bad escape */ }
    const i = at < 0 ? -1 : V.findIndex(v => v.name === name), x = Number(item.slice(at + 1));
    if (i < 0 || item.slice(at + 1) === "" || !Number.isFinite(x)) { bad.push(item); continue; }
    out[i] = x;
  }
  return [out, bad];
}
function load() {
  let [ev, bad] = parse(location.hash);
  if (!location.hash) {
    ev = {};
    for (const [name, x] of Object.entries(S.evidence)) ev[V.findIndex(v => v.name === name)] = x;
  }
  evidence = ev;
  message = bad.length ? "ignored: " + bad.join(", ") : "";
  render();
}
const panel = null;  // no side panel: the boxes carry everything
document.getElementById("why").style.display = "none";
document.getElementById("map").style.display = "none";  // a Gaussian's MAP is its mean
