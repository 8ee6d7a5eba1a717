// boxes of continuous variables, shared by the Gaussian page and the mixed (CLG) page: the
// posterior density (a Gaussian mixture {w, m, v}; the prior as a grey curve), its moments,
// and a slider and a number box that set the variable's value as evidence
function num(x) { return Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(3) : x.toFixed(3); }
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
function densityBox(v, i, onValue, onClear) {
  const d = document.createElement("div");
  d.className = "var gauss" + (v.root ? " root" : "");
  d.dataset.variable = v.name;
  Object.assign(d.style, { left: v.x + "px", top: v.y + "px", width: v.w + "px", height: v.h + "px" });
  const t = document.createElement("div"); t.className = "name"; t.textContent = v.name;
  t.title = v.formula || v.name; d.appendChild(t);
  const plot = document.createElementNS(NS, "svg"); plot.setAttribute("class", "density");
  plot.setAttribute("width", v.w - 12); plot.setAttribute("height", 38);
  d.appendChild(plot);
  const text = document.createElement("div"); text.className = "moments"; d.appendChild(text);
  const row = document.createElement("div"); row.className = "given";
  const box = document.createElement("input");
  Object.assign(box, { type: "number", step: "any", placeholder: "value" }); box.className = "value";
  const slider = document.createElement("input");
  Object.assign(slider, { type: "range", min: String(v.range[0]), max: String(v.range[1]),
                          step: String((v.range[1] - v.range[0]) / 200) });
  slider.className = "slider";
  const clear = document.createElement("button"); clear.textContent = "\u00d7"; clear.title = "clear";
  box.addEventListener("change", () => onValue(i, box.value));
  slider.addEventListener("change", () => onValue(i, slider.value));
  clear.addEventListener("click", () => onClear(i));
  row.appendChild(slider); row.appendChild(box); row.appendChild(clear); d.appendChild(row);
  canvas.appendChild(d);
  return d;
}
// one box's picture: post and prior mixtures, or the observed value x
function drawDensity(d, v, post, prior, x) {
  const plot = d.querySelector("svg.density"), w = v.w - 12, h = 38, [lo, hi] = v.range;
  while (plot.firstChild) plot.removeChild(plot.firstChild);
  const shapes = [[prior, "prior"]];
  if (x === undefined) shapes.push([post, "posterior"]);
  let top = 0;
  const grid = [];
  for (let s = 0; s <= 80; s++) grid.push(lo + (hi - lo) * s / 80);
  const ys = shapes.map(([q]) => grid.map(g => mixturePdf(q, g)));
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
  const box = d.querySelector("input.value"), slider = d.querySelector("input.slider");
  if (document.activeElement !== box) box.value = x !== undefined ? String(x) : "";
  slider.value = String(x !== undefined ? x : m);
}
// a number typed or slid: the value, or null (and a message) when it is no finite number
function readNumber(text) {
  const x = Number(text);
  if (text === "" || !Number.isFinite(x)) return null;
  return x;
}
