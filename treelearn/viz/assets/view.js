// The drawing (after engine.js): the canvas, the edges with their arrowheads, one box per
// variable (a discrete one's bars, a number's density with its slider and number box),
// the hover tables; drawMarginals shows an answer of the engine on the boxes.
const canvas = document.getElementById("canvas"), svg = document.getElementById("edges");
const tip = document.getElementById("tip"), status = document.getElementById("status");
const viewBox = document.getElementById("view");
canvas.style.width = S.width + "px"; canvas.style.height = S.height + "px";
svg.setAttribute("width", S.width); svg.setAttribute("height", S.height);
const NS = "http://www.w3.org/2000/svg";
let shownEdges = 0;  // which tree's edges (a multinet: one per class)

function fmt(p) { return (100 * p).toFixed(p > 0 && p < 0.001 ? 3 : 1) + "%"; }
function num(x) { return Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(3) : x.toFixed(3); }

// ---------------------------------------------------------------- edges
function drawEdges() {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  for (const [u, v, kind, width, strength, route] of S.edges[shownEdges]) {
    if (kind === "class") continue;  // a mark on the box instead: lines would cross the boxes
    const a = V[u], b = V[v], g = document.createElementNS(NS, "g");
    // a tree edge of the layout: its route round the other boxes (tree_route, computed
    // with the layout); any other: a straight line between the boxes
    let pts = route;
    if (!pts) {
      const down = b.y >= a.y + a.h;
      pts = [[a.x + a.w / 2, down ? a.y + a.h : a.y + a.h / 2], [b.x + b.w / 2, down ? b.y : b.y + b.h / 2]];
    }
    g.setAttribute("class", kind === "extra" ? "edge extra" : "edge");
    g.dataset.edge = JSON.stringify([a.name, b.name]);
    g.dataset.strength = strength === null ? "" : String(strength);
    for (const cls of ["hit", "shown"]) {  // a wide transparent line catches the hover
      const l = document.createElementNS(NS, "polyline");
      l.setAttribute("points", pts.map(p => p.join(",")).join(" "));
      l.setAttribute("class", cls);
      if (cls === "shown") l.setAttribute("stroke-width", width);
      g.appendChild(l);
    }
    // the arrowhead: a triangle whose tip is the line's end, on the child's box
    const [x1, y1] = pts[pts.length - 2], [x2, y2] = pts[pts.length - 1];
    const len = Math.hypot(x2 - x1, y2 - y1) || 1, ux = (x2 - x1) / len, uy = (y2 - y1) / len;
    const bx = x2 - 9 * ux, by = y2 - 9 * uy, head = document.createElementNS(NS, "path");
    head.setAttribute("class", "head");
    head.setAttribute("d", "M" + x2 + "," + y2 + " L" + (bx - 4 * uy) + "," + (by + 4 * ux) +
                      " L" + (bx + 4 * uy) + "," + (by - 4 * ux) + " Z");
    g.appendChild(head);
    const t = document.createElementNS(NS, "title");
    t.textContent = a.name + " \u2192 " + b.name + (strength === null ? "" :
      S.strength === "posterior" ? ": P(" + a.name + " \u2013 " + b.name + " in the tree | data) = " + strength.toFixed(4) :
      ": I(" + a.name + "; " + b.name + ") = " + strength.toFixed(4) + " nats" +
      (S.edge_labels.length ? " (given " + V[S.cond].name + " = " + S.edge_labels[shownEdges] + ")" : ""));
    g.appendChild(t);
    if (strength !== null) {
      const lab = document.createElementNS(NS, "text");
      const k = Math.floor(pts.length / 2), [p0, p1] = [pts[k - 1], pts[k]];  // the crossing
      lab.setAttribute("x", (p0[0] + p1[0]) / 2 + 4); lab.setAttribute("y", (p0[1] + p1[1]) / 2);
      lab.textContent = strength.toFixed(3); g.appendChild(lab);
    }
    svg.appendChild(g);
  }
}
const classMarked = new Set(S.edges[0].filter(e => e[2] === "class").map(e => e[1]));
const MARKER = classMarked.size ? S.edges[0].find(e => e[2] === "class")[0] : -1;  // the class

// ---------------------------------------------------------------- boxes
// a number's regression (a Gaussian or CLG tree's) is its name's tooltip
function formula(v, i) {
  const g = S.gauss && !S.components[0].gauss ? S.gauss[i] : null;
  if (!g || g.means) return v.name;
  return v.name + " ~ N(" + num(g.a) + (g.parent >= 0 ? " + " + num(g.b) + " \u00b7 " +
    V[g.parent].name : "") + ", sd " + num(Math.sqrt(g.s2)) + ")";
}
function boxOf(v, i, cls) {
  const d = document.createElement("div");
  d.className = cls;
  d.dataset.variable = v.name;
  Object.assign(d.style, { left: v.x + "px", top: v.y + "px", width: v.w + "px", height: v.h + "px" });
  const t = document.createElement("div"); t.className = "name"; t.textContent = v.name;
  t.title = formula(v, i); d.appendChild(t);
  canvas.appendChild(d);
  return d;
}
// a discrete variable: one row per state (a click sets or clears it), its CPT on hover
function stateBox(v, i, onState) {
  const d = boxOf(v, i, "var" + (v.root ? " root" : "") + (v.cls ? " cls" : ""));
  if (classMarked.has(i)) {
    const mk = document.createElement("span"); mk.className = "mark";
    mk.title = V[MARKER].name + " is also a parent of " + v.name; d.firstChild.prepend(mk);
  }
  v.states.forEach((s, x) => {
    const r = document.createElement("div"); r.className = "st"; r.dataset.state = s;
    r.innerHTML = '<span class="lab"></span><span class="bar"><i></i><b></b></span><span class="pct"></span>';
    r.firstChild.textContent = s; r.firstChild.title = s;
    r.addEventListener("click", () => onState(i, x));
    d.appendChild(r);
  });
  d.addEventListener("mouseenter", () => showCpt(i));
  d.addEventListener("mousemove", e => { tip.style.left = (e.pageX + 14) + "px"; tip.style.top = (e.pageY + 14) + "px"; });
  d.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  return d;
}
// a number: its posterior density (the prior as a grey curve), its moments, and a slider
// and a number box that set its value as evidence
function numberBox(v, i, onValue, onClear) {
  const d = boxOf(v, i, "var gauss" + (v.root ? " root" : ""));
  const plot = document.createElementNS(NS, "svg"); plot.setAttribute("class", "density");
  plot.setAttribute("width", v.w - 12); plot.setAttribute("height", 38);
  d.appendChild(plot);
  const text = document.createElement("div"); text.className = "moments"; d.appendChild(text);
  const row = document.createElement("div"); row.className = "given";
  const value = document.createElement("input");
  Object.assign(value, { type: "number", step: "any", placeholder: "value" }); value.className = "value";
  const slider = document.createElement("input");
  Object.assign(slider, { type: "range", min: String(v.range[0]), max: String(v.range[1]),
                          step: String((v.range[1] - v.range[0]) / 200) });
  slider.className = "slider";
  const clear = document.createElement("button"); clear.textContent = "\u00d7"; clear.title = "clear";
  value.addEventListener("change", () => onValue(i, value.value));
  slider.addEventListener("change", () => onValue(i, slider.value));
  clear.addEventListener("click", () => onClear(i));
  row.appendChild(slider); row.appendChild(value); row.appendChild(clear); d.appendChild(row);
  return d;
}

function showCpt(i) {
  const v = V[i], c = v.cpt;
  let h = "<table><caption></caption><tr>";
  for (let n = 0; n < c.parents.length + v.states.length; n++) h += "<th></th>";
  h += "</tr>";
  for (const [ps, probs] of c.rows) {
    h += "<tr>" + ps.map(() => "<td></td>").join("") + probs.map(() => "<td></td>").join("") + "</tr>";
  }
  if (c.total > c.rows.length) h += "<tr><td colspan=99>… " + (c.total - c.rows.length) + " more rows</td></tr>";
  tip.innerHTML = h + "</table>";
  // text through textContent: labels are data, never markup
  tip.querySelector("caption").textContent = "P(" + v.name + (c.parents.length ? " | " + c.parents.join(", ") : "") + ")";
  const ths = tip.querySelectorAll("th");
  [...c.parents, ...v.states].forEach((t, n) => { ths[n].textContent = t; });
  const trs = tip.querySelectorAll("tr");
  c.rows.forEach(([ps, probs], r) => {
    const tds = trs[r + 1].querySelectorAll("td");
    ps.forEach((t, n) => { tds[n].textContent = t; tds[n].style.textAlign = "left"; });
    probs.forEach((p, n) => { tds[ps.length + n].textContent = p.toFixed(4); });
  });
  tip.style.display = "block";
}

// ---------------------------------------------------------------- showing an answer
// a number's marginal, {weights, means, variances} or {observed: x}, as a mixture
// {w, m, v}; on a Gaussian tree's page data-marginal is [mean, variance] ([x, 0] observed)
const asMixture = q => ({ w: q.weights, m: q.means, v: q.variances });
const asMoments = q => ("observed" in q ? [q.observed, 0] : [q.means[0], q.variances[0]]);
function mixturePdf(q, x) {
  let s = 0;
  q.w.forEach((w, j) => { if (w > 0) s += w * Math.exp(-(x - q.m[j]) * (x - q.m[j]) / (2 * q.v[j])) / Math.sqrt(2 * Math.PI * q.v[j]); });
  return s;
}
function moments(q) {  // the mixture's mean and variance (the law of total variance)
  let m = 0, v = 0;
  q.w.forEach((w, j) => { m += w * q.m[j]; });
  q.w.forEach((w, j) => { v += w * (q.v[j] + (q.m[j] - m) * (q.m[j] - m)); });
  return [m, Math.max(v, 0)];
}
// one number's picture: its posterior and prior mixtures, or the observed value x
function drawDensity(d, v, post, prior, x) {
  const plot = d.querySelector("svg.density"), w = v.w - 12, h = 38, [lo, hi] = v.range;
  while (plot.firstChild) plot.removeChild(plot.firstChild);
  const shapes = [[prior, "prior"]];
  if (x === undefined) shapes.push([post, "posterior"]);
  const grid = [];
  for (let s = 0; s <= 80; s++) grid.push(lo + (hi - lo) * s / 80);
  const ys = shapes.map(([q]) => grid.map(g => mixturePdf(q, g)));
  let top = 0;
  ys.forEach(y => { top = Math.max(top, ...y); });
  shapes.forEach(([, cls], n) => {
    const p = document.createElementNS(NS, "path");
    p.setAttribute("d", ys[n].map((y, s) => (s ? "L" : "M") + (w * s / 80).toFixed(1) + "," +
      (h - 2 - (h - 4) * y / (top || 1)).toFixed(1)).join(" "));
    p.setAttribute("class", cls); plot.appendChild(p);
  });
  if (x !== undefined) {
    const at = w * (x - lo) / (hi - lo), l = document.createElementNS(NS, "line");
    Object.entries({ x1: at, x2: at, y1: 0, y2: h, class: "observed" }).forEach(([k, val]) => l.setAttribute(k, val));
    plot.appendChild(l);
  }
  const [m, va] = moments(post), [m0, v0] = moments(prior);
  d.querySelector(".moments").textContent = x !== undefined ? "observed " + num(x)
    : "mean " + num(m) + " \u00b1 " + num(Math.sqrt(va)) + "  (prior " + num(m0) + " \u00b1 " + num(Math.sqrt(v0)) + ")";
  d.title = "prior: mean " + num(m0) + ", sd " + num(Math.sqrt(v0)) + " \u2192 posterior: mean " +
    num(m) + ", sd " + num(Math.sqrt(va));
  const value = d.querySelector("input.value"), slider = d.querySelector("input.slider");
  if (document.activeElement !== value) value.value = x !== undefined ? String(x) : "";
  slider.value = String(x !== undefined ? x : m);
}
// every box: r's marginals over PRIOR's (the marginals without evidence), the evidence
// ev (states), nums (numbers) and sf (likelihoods) marked, best's states starred (MAP)
function drawMarginals(boxes, r, prior, ev, nums, sf, best) {
  V.forEach((v, i) => {
    const m = r.marg[i], d = boxes[i], p0 = prior.marg[i];
    d.dataset.marginal = JSON.stringify(S.moments ? asMoments(m) : m);
    d.dataset.prior = JSON.stringify(S.moments ? asMoments(p0) : p0);
    if (isNumber(i)) {
      d.classList.toggle("observed", i in nums);
      drawDensity(d, v, i in nums ? asMixture(p0) : asMixture(m), asMixture(p0), nums[i]);
      return;
    }
    d.classList.toggle("observed", i in ev);
    d.classList.toggle("soft", i in sf);
    d.querySelectorAll(".st").forEach((row, x) => {
      row.querySelector("i").style.width = (100 * m[x]) + "%";
      row.querySelector("b").style.width = (100 * p0[x]) + "%";
      row.querySelector(".pct").textContent = fmt(m[x]);
      row.title = v.states[x] + ": prior " + fmt(p0[x]) + " \u2192 " + fmt(m[x]) +
        " (" + (m[x] >= p0[x] ? "+" : "\u2212") + (100 * Math.abs(m[x] - p0[x])).toFixed(1) + " points)";
      row.classList.toggle("on", ev[i] === x);
      row.classList.toggle("map", best !== null && !(i in ev) && best.state[i] === x);
    });
  });
}
