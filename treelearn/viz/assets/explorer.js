// the discrete page: exact sum-product and max-product over forests, in the browser
const K = V.map(v => v.states.length);
// a posterior over trees: its joint table, one "forest" per complete assignment, every
// variable fixed there (a root whose CPT row is all ones), weighted by its probability
if (S.joint) {
  S.components = S.joint.p.map((p, r) => ({
    weight: p, fixed: S.joint.rows[r].map((x, i) => [i, x]), parent: V.map(() => -1),
    cpt: V.map((v, i) => [new Array(K[i]).fill(1)]), order: V.map((v, i) => i) }));
}
for (const c of S.components) {
  c.children = V.map(() => []);
  c.parent.forEach((p, i) => { if (p >= 0) c.children[p].push(i); });
}
let evidence = {};  // variable index -> state index
let numeric = {};  // a continuous variable's index -> its observed number (a CLG tree's page)
let soft = {};  // variable index -> likelihood: one non-negative weight per state (not all 0)

function sum(a) { let s = 0; for (const x of a) s += x; return s; }
function scaleBy(a, s) { for (let i = 0; i < a.length; i++) a[i] /= s; }

// one forest, evidence as indicator vectors: log P(evidence) and every marginal
function forest(c, lam) {
  const up = new Array(N), msg = new Array(N);
  let logZ = 0;
  for (let o = c.order.length - 1; o >= 0; o--) {  // leaves to roots
    const v = c.order[o], k = K[v];
    const b = lam[v] ? lam[v].slice() : new Array(k).fill(1);
    for (const ch of c.children[v]) {
      const m = msg[ch];
      for (let x = 0; x < k; x++) b[x] *= m[x];
      const top = Math.max(...b);  // rescaled, so that long products cannot underflow
      if (top === 0) return null;
      scaleBy(b, top); logZ += Math.log(top);
    }
    up[v] = b;
    const T = c.cpt[v];
    if (c.parent[v] >= 0) {
      const m = T.map(row => { let s = 0; for (let x = 0; x < k; x++) s += row[x] * b[x]; return s; });
      const t = sum(m);
      if (t === 0) return null;
      scaleBy(m, t); logZ += Math.log(t);
      msg[v] = m;
    } else {
      let s = 0;
      for (let x = 0; x < k; x++) s += T[0][x] * b[x];
      if (s === 0) return null;
      logZ += Math.log(s);
    }
  }
  const pi = new Array(N), marg = new Array(N);
  for (const v of c.order) {  // roots to leaves
    const k = K[v], p = c.parent[v], T = c.cpt[v];
    let prior;
    if (p < 0) prior = T[0].slice();
    else {
      const q = pi[p].slice();
      if (lam[p]) for (let y = 0; y < q.length; y++) q[y] *= lam[p][y];
      for (const ch of c.children[p]) {
        if (ch === v) continue;
        for (let y = 0; y < q.length; y++) q[y] *= msg[ch][y];
        const top = Math.max(...q);
        if (top > 0) scaleBy(q, top);
      }
      prior = new Array(k).fill(0);
      for (let y = 0; y < q.length; y++) {
        if (q[y] === 0) continue;
        for (let x = 0; x < k; x++) prior[x] += q[y] * T[y][x];
      }
    }
    scaleBy(prior, sum(prior));
    pi[v] = prior;
    const m = prior.map((x, i) => x * up[v][i]);
    scaleBy(m, sum(m));
    marg[v] = m;
  }
  return { logZ: logZ, marg: marg };
}

// a cutset's forest (c.fixed: [[variable, state], ...]) sees its cutset variables observed
// at their states (their likelihoods, if any, kept as the state's weight); null where the
// evidence gives one of them another state
function fixedLam(c, lam, ev) {
  if (!c.fixed) return lam;
  const out = lam.slice();
  for (const [v, s] of c.fixed) {
    if (v in ev && ev[v] !== s) return null;
    const l = new Array(K[v]).fill(0);
    l[s] = lam[v] ? lam[v][s] : 1;
    if (!(l[s] > 0)) return null;
    out[v] = l;
  }
  return out;
}

// the whole model: one forest, or a mixture over the conditioner's states; ev hard
// evidence, sf soft evidence (likelihoods, as tl's evidence={"X": [w0, w1]}; hard wins)
function infer(ev, sf = soft, nums = numeric) {
  if (S.ande) return andeInfer(ev);  // A2DE's page: its formula, no forests (explorer_ande.js)
  const lam = V.map((v, i) => {
    if (i in ev) { const l = new Array(K[i]).fill(0); l[ev[i]] = 1; return l; }
    return i in sf ? sf[i].slice() : null;
  });
  // a CLG tree: each Gaussian subtree's density of the numbers, per state of the discrete
  // variable it hangs from, is soft evidence on that variable (scaled to a maximum of 1)
  // (a Gaussian classifier's page: each class's joint Gaussian, explorer_class_gaussians.js)
  // (a multinet of CLG trees, MixedTAN's page: each class's component its own Gaussians)
  const perClass = !!(S.gauss && S.components.length && S.components[0].gauss);
  const up = S.gauss && !perClass ? (S.mvn ? mvnUp(nums) : gaussUp(nums)) : null;
  let removed = 0, lamAll = lam;
  if (up) {
    const t = withDensities(up, lam);
    if (!t) return null;
    lamAll = t.lam; removed = t.removed;
  }
  const runs = [], logw = [];
  S.components.forEach((c, j) => {
    if (S.cond >= 0 && S.cond in ev && ev[S.cond] !== j) return;
    // the conditioner is no forest's variable: its likelihood weights the components
    const w = c.weight * (S.cond >= 0 && !(S.cond in ev) && S.cond in sf ? sf[S.cond][j] : 1);
    if (!(w > 0)) return;
    let lamC = lamAll, upC = null, extra = 0;
    if (perClass) {
      upC = gaussUp(nums, c.gauss);
      const t = withDensities(upC, lam);
      if (!t) return;
      lamC = t.lam; extra = t.removed;
    }
    const lc = fixedLam(c, lamC, ev);
    if (!lc) return;
    const r = forest(c, lc);
    if (r) { runs.push([j, r, upC]); logw.push(Math.log(w) + r.logZ + extra); }
  });
  if (!runs.length) return null;
  const top = Math.max(...logw);
  const w = logw.map(x => Math.exp(x - top)), tw = sum(w);
  const marg = V.map((v, i) => new Array(K[i]).fill(0));
  runs.forEach(([j, r], n) => {
    const a = w[n] / tw;
    for (let i = 0; i < N; i++) {
      if (i === S.cond) marg[i][j] += a;
      else for (let x = 0; x < K[i]; x++) marg[i][x] += a * r.marg[i][x];
    }
  });
  for (const i in ev) { marg[i].fill(0); marg[i][ev[i]] = 1; }
  if (up) (S.mvn ? mvnDown : gaussDown)(up, marg, nums);
  if (perClass) {  // each continuous variable: the mixture over classes of each class's
    const per = runs.map(([j, r, upC]) => {  // (its attachment's states within the class)
      const m = r.marg.slice();
      gaussDown(upC, m, nums, S.components[j].gauss);
      return m;
    });
    for (const v of S.gauss_order) {
      if (v in nums) { marg[v] = { observed: nums[v] }; continue; }
      const q = { weights: [], means: [], variances: [] };
      per.forEach((m, n) => {
        const a = w[n] / tw;
        m[v].weights.forEach((x, s) => {
          q.weights.push(a * x); q.means.push(m[v].means[s]); q.variances.push(m[v].variances[s]);
        });
      });
      marg[v] = q;
    }
  }
  return { logZ: top + Math.log(tw) + removed, marg: marg };
}

// a CLG tree's densities of the numbers (gaussUp's) as soft evidence: a copy of the
// likelihoods lam with each attachment's densities (scaled to a maximum of 1), and the
// log of what was removed; null where the numbers are impossible
function withDensities(up, lam) {
  const out = lam.slice();
  let removed = up.logConst;
  for (const [d, logs] of Object.entries(up.attach)) {
    const top = Math.max(...logs);
    if (!(top > -Infinity)) return null;
    const l = out[d] || new Array(K[d]).fill(1);
    out[d] = l.map((x, a) => x * Math.exp(logs[a] - top));
    removed += top;
  }
  return { lam: out, removed: removed };
}

// ---------------------------------------------------------------- a CLG tree's Gaussians
// S.gauss: per variable null (discrete) or {kind: 0 (no parent) | 1 (a discrete parent:
// means, vars, one per state) | 2 (a continuous parent: a, b, s2)}; S.gauss_order: the
// continuous variables, parents first; S.gparent: each one's parent (-1: none).
// Upward, each subtree's likelihood of the numbers as exp(-J x^2 / 2 + h x + c) of its
// parent (the Gaussian page's message), one log-density per state at a discrete parent.
function gaussUp(nums, G = S.gauss) {
  const J = new Array(N).fill(0), H = new Array(N).fill(0), C = new Array(N).fill(0);
  const mJ = new Array(N).fill(0), mH = new Array(N).fill(0), attach = {};
  let logConst = 0;
  for (let o = S.gauss_order.length - 1; o >= 0; o--) {
    const v = S.gauss_order[o], g = G[v], p = S.gparent[v];
    const one = (a, b, s2) => {  // the message for the regression N(a + b x, s2)
      if (v in nums) {
        const y = nums[v], r = y - a;
        return [b * b / s2, b * r / s2,
                -r * r / (2 * s2) - 0.5 * Math.log(2 * Math.PI * s2) - 0.5 * J[v] * y * y + H[v] * y + C[v]];
      }
      const sp = 1 + s2 * J[v], k = J[v] / sp, q = H[v] / sp;
      return [k * b * b, b * (q - k * a),
              C[v] + H[v] * H[v] * s2 / (2 * sp) - 0.5 * Math.log(sp) - 0.5 * k * a * a + q * a];
    };
    if (g.kind === 2) {
      const [jm, hm, cm] = one(g.a, g.b, g.s2);
      mJ[v] = jm; mH[v] = hm; J[p] += jm; H[p] += hm; C[p] += cm;
    } else if (g.kind === 0) logConst += one(g.a, 0, g.s2)[2];
    else {
      const logs = g.means.map((m, a) => one(m, 0, g.vars[a])[2]);
      attach[p] = attach[p] ? attach[p].map((x, a) => x + logs[a]) : logs;
    }
  }
  return { J: J, H: H, mJ: mJ, mH: mH, attach: attach, logConst: logConst };
}
// downward, per state of the subtree's discrete parent: each variable given the numbers
// outside its subtree, times its subtree's likelihood; the posterior is the mixture over
// those states, weighted by the discrete parent's posterior
function gaussDown(up, marg, nums, G = S.gauss) {
  const pm = new Array(N), pv = new Array(N);
  for (const v of S.gauss_order) {
    const g = G[v], p = S.gparent[v];
    if (g.kind === 0) { pm[v] = [g.a]; pv[v] = [g.s2]; }
    else if (g.kind === 1) { pm[v] = g.means.slice(); pv[v] = g.vars.slice(); }
    else if (p in nums) { pm[v] = pm[p].map(() => g.a + g.b * nums[p]); pv[v] = pv[p].map(() => g.s2); }
    else {
      const jx = pv[p].map(x => 1 / x + up.J[p] - up.mJ[v]);
      const hx = pm[p].map((m, j) => m / pv[p][j] + up.H[p] - up.mH[v]);
      pm[v] = jx.map((x, j) => g.a + g.b * hx[j] / x); pv[v] = jx.map(x => g.b * g.b / x + g.s2);
    }
    if (v in nums) { marg[v] = { observed: nums[v] }; continue; }
    const prec = pv[v].map(x => 1 / x + up.J[v]);
    marg[v] = { weights: S.gattach[v] >= 0 ? marg[S.gattach[v]].slice() : [1],
                means: prec.map((q, j) => (pm[v][j] / pv[v][j] + up.H[v]) / q),
                variances: prec.map(q => 1 / q) };
  }
}
const asMixture = q => ({ w: q.weights, m: q.means, v: q.variances });

// ---------------------------------------------------------------- the most probable completion
// one forest, by max-product in logs: log max_x P(x, evidence) and the maximiser (ties to
// the first state in state order, as tl's map_query)
function forestMax(c, lam) {
  const msg = new Array(N), arg = new Array(N), state = new Array(N).fill(-1);
  let total = 0;
  for (let o = c.order.length - 1; o >= 0; o--) {  // leaves to roots
    const v = c.order[o], k = K[v];
    const b = new Array(k);
    for (let x = 0; x < k; x++) b[x] = Math.log(lam[v] ? lam[v][x] : 1);
    for (const ch of c.children[v]) for (let x = 0; x < k; x++) b[x] += msg[ch][x];
    const T = c.cpt[v];
    const rows = c.parent[v] >= 0 ? T.length : 1;
    const m = new Array(rows), a = new Array(rows);
    for (let y = 0; y < rows; y++) {
      let top = -Infinity, at = 0;
      for (let x = 0; x < k; x++) {
        const s = Math.log(T[y][x]) + b[x];
        if (s > top) { top = s; at = x; }
      }
      m[y] = top; a[y] = at;
    }
    arg[v] = a;
    if (c.parent[v] >= 0) msg[v] = m; else { total += m[0]; state[v] = a[0]; }
  }
  for (const v of c.order) if (c.parent[v] >= 0) state[v] = arg[v][state[c.parent[v]]];
  return { logp: total, state: state };
}

// the whole model: the best forest (one per conditioner state), weighted as in infer
function mapQuery(ev, sf = soft) {
  const lam = V.map((v, i) => {
    if (i in ev) { const l = new Array(K[i]).fill(0); l[ev[i]] = 1; return l; }
    return i in sf ? sf[i].slice() : null;
  });
  let best = null;
  S.components.forEach((c, j) => {
    if (S.cond >= 0 && S.cond in ev && ev[S.cond] !== j) return;
    const w = c.weight * (S.cond >= 0 && !(S.cond in ev) && S.cond in sf ? sf[S.cond][j] : 1);
    if (!(w > 0)) return;
    const lc = fixedLam(c, lam, ev);
    if (!lc) return;
    const r = forestMax(c, lc);
    const logp = Math.log(w) + r.logp;
    if (!(logp > -Infinity) || (best && !(logp > best.logp))) return;
    if (S.cond >= 0) r.state[S.cond] = j;
    best = { logp: logp, state: r.state };
  });
  return best;
}

// ---------------------------------------------------------------- why, and what to ask next
// the target's log-odds given ev (and sf): log P(t | ev) - mean_{c != t} log P(c | ev)
function logOdds(ev, sf, target, t) {
  const r = infer(ev, sf);
  if (!r) return NaN;
  const m = r.marg[target];
  let others = 0;
  for (let c = 0; c < m.length; c++) if (c !== t) others += Math.log(m[c]);
  return Math.log(m[t]) - others / (m.length - 1);
}

// each piece of evidence's share of the target's log-odds (the most probable state): exact
// Shapley values over the pieces (the others summed out, as tl's explain(conditional=True);
// a likelihood is a piece too) for up to 10 of them, else the chain rule in S.order
// (explain(kind="log_odds")'s order)
function why(ev, target, sf = soft) {
  if (target in ev || K[target] < 2) return null;
  const r = infer(ev, sf);
  if (!r) return null;
  const m = r.marg[target];
  const t = m.indexOf(Math.max(...m));
  const keys = S.order.filter(i => i in ev || i in sf);
  const p = keys.length;
  const value = mask => {
    const sub = {}, subSoft = {};
    keys.forEach((i, b) => {
      if (!(mask & (1 << b))) return;
      if (i in ev) sub[i] = ev[i]; else subSoft[i] = sf[i];
    });
    return logOdds(sub, subSoft, target, t);
  };
  const phi = new Array(p).fill(0);
  let exact = p <= 10;
  if (exact) {
    const v = [];
    for (let mask = 0; mask < (1 << p); mask++) v.push(value(mask));
    const fact = [1];
    for (let i = 1; i <= p; i++) fact.push(fact[i - 1] * i);
    for (let mask = 0; mask < (1 << p); mask++) {
      let size = 0;
      for (let b = 0; b < p; b++) if (mask & (1 << b)) size++;
      for (let b = 0; b < p; b++) {
        if (mask & (1 << b)) continue;
        phi[b] += fact[size] * fact[p - size - 1] / fact[p] * (v[mask | (1 << b)] - v[mask]);
      }
    }
  } else {
    let before = value(0);
    for (let b = 0; b < p; b++) {
      const after = value((1 << (b + 1)) - 1);
      phi[b] = after - before; before = after;
    }
  }
  if (!phi.every(Number.isFinite)) return null;
  return { state: t, base: value(0), value: logOdds(ev, sf, target, t), exact: exact,
           items: keys.map((i, b) => [i, phi[b]]) };
}

// every variable not given a state: its expected information about the target,
// I(T; X | ev) in nats, largest first: one inference given ev, one more per state t of T
function askNext(ev, target, sf = soft) {
  if (target in ev) return [];
  const r0 = infer(ev, sf);
  if (!r0) return [];
  const pt = r0.marg[target];
  const given = pt.map((p, t) => {
    if (!(p > 0)) return null;
    const e = Object.assign({}, ev); e[target] = t;
    return infer(e, sf);
  });
  const out = [];
  for (let x = 0; x < N; x++) {
    if (x === target || x in ev) continue;
    let info = 0;
    pt.forEach((p, t) => {
      if (!given[t]) return;
      const a = given[t].marg[x], b = r0.marg[x];
      for (let s = 0; s < a.length; s++) if (a[s] > 0) info += p * a[s] * Math.log(a[s] / b[s]);
    });
    out.push([x, Math.max(info, 0)]);
  }
  return out.sort((u, w) => w[1] - u[1] || u[0] - w[0]);
}

function setNumber(i, text) {
  const x = readNumber(text);
  if (x === null) { message = V[i].name + " takes a number, not \u201c" + text + "\u201d"; render(); return; }
  const next = Object.assign({}, numeric); next[i] = x;
  if (!infer(evidence, soft, next)) { message = V[i].name + " = " + x + " is impossible with this evidence"; render(); return; }
  numeric = next; changed();
}
const boxes = V.map((v, i) => {
  if (v.gauss) return densityBox(v, i, setNumber, j => { delete numeric[j]; changed(); });
  const d = document.createElement("div");
  d.className = "var" + (v.root ? " root" : "") + (v.cls ? " cls" : "");
  d.dataset.variable = v.name;
  Object.assign(d.style, { left: v.x + "px", top: v.y + "px", width: v.w + "px", height: v.h + "px" });
  const t = document.createElement("div"); t.className = "name"; t.textContent = v.name;
  t.title = v.name; d.appendChild(t);
  if (classMarked.has(i)) {
    const mk = document.createElement("span"); mk.className = "mark";
    mk.title = V[MARKER].name + " is also a parent of " + v.name; t.prepend(mk);
  }
  v.states.forEach((s, x) => {
    const r = document.createElement("div"); r.className = "st"; r.dataset.state = s;
    r.innerHTML = '<span class="lab"></span><span class="bar"><i></i><b></b></span><span class="pct"></span>';
    r.firstChild.textContent = s; r.firstChild.title = s;
    r.addEventListener("click", () => toggle(i, x));
    d.appendChild(r);
  });
  d.addEventListener("mouseenter", e => showCpt(i, e));
  d.addEventListener("mousemove", moveTip);
  d.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  canvas.appendChild(d);
  return d;
});


function showCpt(i) {
  const v = V[i], c = v.cpt;
  let h = "<table><caption></caption><tr>";
  for (const p of c.parents) h += "<th></th>";
  for (const s of v.states) h += "<th></th>";
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

let message = "";
// the marginals without evidence: each state's bar shows the prior as a thin grey line
// under the posterior, and its tooltip "prior -> posterior"
const PRIOR = infer({}, {});
let showMap = false;
function render() {
  const r = infer(evidence);
  const best = showMap ? mapQuery(evidence) : null;
  V.forEach((v, i) => {
    const m = r.marg[i], d = boxes[i], p0 = PRIOR.marg[i];
    d.dataset.marginal = JSON.stringify(m);
    d.dataset.prior = JSON.stringify(p0);
    if (v.gauss) {
      d.classList.toggle("observed", i in numeric);
      drawDensity(d, v, i in numeric ? asMixture(p0) : asMixture(m), asMixture(p0), numeric[i]);
      return;
    }
    d.classList.toggle("observed", i in evidence);
    d.classList.toggle("soft", i in soft);
    d.querySelectorAll(".st").forEach((row, x) => {
      row.querySelector("i").style.width = (100 * m[x]) + "%";
      row.querySelector("b").style.width = (100 * p0[x]) + "%";
      row.querySelector(".pct").textContent = fmt(m[x]);
      row.title = v.states[x] + ": prior " + fmt(p0[x]) + " \u2192 " + fmt(m[x]) +
        " (" + (m[x] >= p0[x] ? "+" : "\u2212") + (100 * Math.abs(m[x] - p0[x])).toFixed(1) + " points)";
      row.classList.toggle("on", evidence[i] === x);
      row.classList.toggle("map", best !== null && !(i in evidence) && best.state[i] === x);
    });
  });
  if (best) {
    const named = {};
    V.forEach((v, i) => { if (!(i in evidence)) named[v.name] = v.states[best.state[i]]; });
    status.dataset.map = JSON.stringify(named);
    status.dataset.mapLogProb = String(best.logp);
  } else { delete status.dataset.map; delete status.dataset.mapLogProb; }
  const named = {};
  for (const i in evidence) named[V[i].name] = V[i].states[evidence[i]];
  for (const i in numeric) named[V[i].name] = numeric[i];
  status.dataset.evidence = JSON.stringify(named);
  const likelihoods = {};
  for (const i in soft) likelihoods[V[i].name] = soft[i];
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
  const keys = Object.keys(evidence);
  const softKeys = Object.keys(soft);
  if (!keys.length && !softKeys.length && !Object.keys(numeric).length) {
    status.appendChild(document.createTextNode("click a state to set evidence"));
  }
  for (const i of keys) {
    const s = document.createElement("span"); s.className = "ev";
    s.textContent = V[i].name + " = " + V[i].states[evidence[i]] + " ×";
    s.title = "clear"; s.addEventListener("click", () => toggle(+i, evidence[i]));
    status.appendChild(s);
  }
  for (const i of softKeys) {
    const s = document.createElement("span"); s.className = "ev soft";
    s.textContent = V[i].name + " ~ [" + soft[i].map(w => +w.toPrecision(3)).join(", ") + "] ×";
    s.title = "clear this likelihood";
    s.addEventListener("click", () => { delete soft[+i]; changed(); });
    status.appendChild(s);
  }
  const numKeys = Object.keys(numeric);
  for (const i of numKeys) {
    const s = document.createElement("span"); s.className = "ev";
    s.textContent = V[i].name + " = " + num(numeric[i]) + " \u00d7"; s.title = "clear";
    s.addEventListener("click", () => { delete numeric[+i]; changed(); });
    status.appendChild(s);
  }
  if (keys.length || softKeys.length || numKeys.length) {
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
  renderWhy();
}

// the panel: the target's log-odds explained by the evidence, and what to ask next
const panel = document.getElementById("why");
let target = S.target >= 0 ? S.target : (S.cond >= 0 ? S.cond : 0);
function bars(title, items, scale) {
  const box = document.createElement("div"); box.className = "list";
  const h = document.createElement("h2"); h.textContent = title; box.appendChild(h);
  const top = Math.max(1e-12, ...items.map(([, x]) => Math.abs(x)));
  for (const [i, x] of items) {
    const row = document.createElement("div"); row.className = "item";
    row.dataset.item = V[i].name; row.dataset.value = String(x);
    row.innerHTML = '<span class="lab"></span><span class="bar"><i></i></span><span class="num"></span>';
    row.firstChild.textContent = V[i].name + (i in evidence ? " = " + V[i].states[evidence[i]]
      : i in soft ? " ~ [" + soft[i].map(w => +w.toPrecision(3)).join(", ") + "]" : "");
    const bar = row.querySelector("i");
    bar.style.width = (50 * Math.abs(x) / top) + "%";
    bar.style.marginLeft = scale === "signed" ? (x >= 0 ? "50%" : (50 - 50 * Math.abs(x) / top) + "%") : "0";
    bar.className = x >= 0 ? "up" : "down";
    row.querySelector(".num").textContent = (scale === "signed" && x >= 0 ? "+" : "") + x.toFixed(3);
    box.appendChild(row);
  }
  return box;
}
function renderWhy() {
  if (!panel || S.gauss) return;  // a CLG tree's page: no panel (its players would be numbers too)
  panel.innerHTML = "";
  const sel = document.createElement("select"); sel.id = "target";
  V.forEach((v, i) => { const o = document.createElement("option"); o.value = i; o.textContent = v.name; sel.appendChild(o); });
  sel.value = target;
  sel.addEventListener("change", () => { target = +sel.value; renderWhy(); });
  const head = document.createElement("div"); head.textContent = "target ";
  head.appendChild(sel); panel.appendChild(head);
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
  panel.appendChild(softEditor());
}

// soft evidence: a likelihood per state of one variable, one slider each (0 to 1)
let softVar = 0;
function softEditor() {
  const box = document.createElement("div"); box.id = "soft-evidence";
  const h = document.createElement("h2"); h.textContent = "soft evidence (likelihood) on ";
  const sel = document.createElement("select"); sel.id = "soft-variable";
  V.forEach((v, i) => { const o = document.createElement("option"); o.value = i; o.textContent = v.name; sel.appendChild(o); });
  sel.value = softVar;
  sel.addEventListener("change", () => { softVar = +sel.value; renderWhy(); });
  h.appendChild(sel); box.appendChild(h);
  const now = softVar in soft ? soft[softVar] : new Array(K[softVar]).fill(1);
  const sliders = V[softVar].states.map((st, x) => {
    const row = document.createElement("label"); row.className = "slider";
    const lab = document.createElement("span"); lab.textContent = st;
    const input = document.createElement("input");
    Object.assign(input, { type: "range", min: "0", max: "1", step: "0.01" });
    input.value = String(now[x]); input.dataset.state = st;
    // on release: the page is redrawn, which would end a drag that was still going on
    input.addEventListener("change", () => setSoft(softVar, sliders.map(i => +i.value)));
    row.appendChild(lab); row.appendChild(input); box.appendChild(row);
    return input;
  });
  return box;
}
function setSoft(i, weights) {
  if (!weights.some(w => w > 0)) { message = "a likelihood needs a weight above 0"; render(); return; }
  const next = Object.assign({}, soft); next[i] = weights;
  const hard = Object.assign({}, evidence); delete hard[i];
  if (!infer(hard, next)) {
    message = "this likelihood on " + V[i].name + " is impossible with this evidence";
    render(); return;
  }
  soft = next; evidence = hard; changed();
}

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
function changed() {
  message = "";
  const f = fragment();
  try { history.replaceState(null, "", f || location.pathname + location.search); } catch (e) { /* file: pages may refuse */ }
  render();
}
function toggle(i, x) {
  const next = Object.assign({}, evidence);
  if (next[i] === x) delete next[i]; else next[i] = x;
  const rest = Object.assign({}, soft);
  if (i in next) delete rest[i];  // a state replaces the variable's likelihood
  if (!infer(next, rest)) {
    message = V[i].name + " = " + V[i].states[x] + " is impossible with this evidence";
    render(); return;
  }
  evidence = next; soft = rest; changed();
}

// "&soft=var:w0|w1|...,var:..." (one non-negative weight per state, not all zero; a
// variable given a state keeps the state)
function parseSoft(hash, ev, bad) {
  const out = {};
  const part = hash.replace(/^#/, "").split("&").find(p => p.startsWith("soft="));
  if (!part) return out;
  for (const item of part.slice(5).split(",")) {
    if (!item) continue;
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

// "#evidence=var:state,var:state" (names may be percent-encoded; a ":" inside a name is
// found by trying every split against the model's names)
function parse(hash) {
  const out = {}, bad = [], nums = {};
  const part = hash.replace(/^#/, "").split("&").find(p => p.startsWith("evidence="));
  if (!part) return [out, bad, nums];
  for (const item of part.slice(9).split(",")) {
    if (!item) continue;
    let found = false;
    for (let at = item.indexOf(":"); at >= 0 && !found; at = item.indexOf(":", at + 1)) {
      let name, state;
      try { name = decodeURIComponent(item.slice(0, at)); state = decodeURIComponent(item.slice(at + 1)); }
      catch (e) { continue; }
      const i = V.findIndex(v => v.name === name);
      if (i < 0) continue;
      if (V[i].gauss) {  // a number
        const y = readNumber(state);
        if (y !== null) { nums[i] = y; found = true; }
        continue;
      }
      const x = V[i].states.indexOf(state);
      if (x < 0) continue;
      out[i] = x; found = true;
    }
    if (!found) bad.push(item);
  }
  return [out, bad, nums];
}
function load() {
  let [ev, bad, nums] = parse(location.hash);
  if (!location.hash) {
    ev = {}; nums = {};
    for (const [name, state] of Object.entries(S.evidence)) {
      const i = V.findIndex(v => v.name === name);
      if (V[i].gauss) nums[i] = state; else ev[i] = V[i].states.indexOf(state);
    }
  }
  let sf = parseSoft(location.hash, ev, bad);
  if (S.ande && Object.keys(sf).length) { bad.push("soft evidence (A2DE's estimate is no distribution to weight)"); sf = {}; }
  if (!infer(ev, sf, nums)) { bad.push("the evidence has probability zero"); ev = {}; sf = {}; nums = {}; }
  evidence = ev; soft = sf; numeric = nums;
  message = bad.length ? "ignored: " + bad.join(", ") : "";
  render();
}
document.getElementById("map").addEventListener("click", e => {
  showMap = !showMap; e.target.classList.toggle("on", showMap); render(); });
// a CLG tree's page: no side panel, and no MAP (densities and probabilities); A2DE's: none
// either (its estimate is no distribution to take Shapley values, information or a MAP of)
// an ensemble of cutset networks, a mixture: no MAP either (as its map_query refuses)
if (S.no_map) document.getElementById("map").style.display = "none";
if (S.gauss || S.ande) {
  panel.style.display = "none";
  document.getElementById("map").style.display = "none";
}
