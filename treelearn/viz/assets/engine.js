"use strict";
// The page's one inference engine: exact answers from the numbers the page carries (it
// reads the page's data, nothing else of the page; treelearn/viz/_page_spec.py says what
// each key holds). A weighted set of forests of one-parent CPTs (a tree; one per state of
// a conditioner, per joint state of a cutset, per leaf, per row of a joint table; A2DE's
// terms), each by two passes of sum-product (max-product for MAP); numbers by Gaussian
// message passing on a forest of regressions, or by conditioning one joint Gaussian per
// class, their densities a likelihood of the discrete variable they hang from.
const S = JSON.parse(document.getElementById("treelearn-data").textContent);
const V = S.variables, N = V.length, K = V.map(v => v.states.length);
const isNumber = i => K[i] === 0;

// a joint table: one forest per complete assignment, every variable fixed there (a root
// whose CPT row is all ones), weighted by its probability
if (S.joint) {
  S.components = S.joint.p.map((p, r) => ({
    weight: p, fixed: S.joint.rows[r].map((x, i) => [i, x]), parent: V.map(() => -1),
    cpt: V.map((v, i) => [new Array(K[i]).fill(1)]) }));
}
if (!S.components.length) S.components = [{ weight: 1, parent: V.map(() => -1), cpt: V.map(() => null) }];
// each forest's children and a parent-first order (roots and children in variable order)
function parentFirst(parent, keep) {
  const children = V.map(() => []), order = [], stack = [];
  parent.forEach((p, i) => { if (p >= 0) children[p].push(i); });
  for (let i = N - 1; i >= 0; i--) if (parent[i] < 0 && keep(i)) stack.push(i);
  while (stack.length) {
    const v = stack.pop();
    order.push(v);
    for (let k = children[v].length - 1; k >= 0; k--) stack.push(children[v][k]);
  }
  return [children, order];
}
for (const c of S.components) [c.children, c.order] = parentFirst(c.parent, i => c.cpt[i] !== null);
// the numbers: each one's parent (a number or a discrete variable), parents first, and
// the discrete variable its Gaussian subtree hangs from (-1: none)
const G0 = S.gauss || (S.components[0].gauss) || null;
const gparent = V.map((v, i) => (G0 && G0[i] ? G0[i].parent : -1));
const gaussOrder = G0 ? parentFirst(gparent, () => true)[1].filter(isNumber) : [];
const gattach = V.map(() => -1);
for (const v of gaussOrder) {
  const p = gparent[v];
  gattach[v] = p < 0 ? -1 : isNumber(p) ? gattach[p] : p;
}
const numbers = V.map((v, i) => i).filter(isNumber);
// a selective average (A2DE): the variables whose adding can change which forests count
const selective = new Set();
if (S.select) for (const c of S.components) for (const [v] of c.fixed || []) selective.add(v);

function sum(a) { let s = 0; for (const x of a) s += x; return s; }
function scaleBy(a, s) { for (let i = 0; i < a.length; i++) a[i] /= s; }
function rescale(a) { const top = Math.max(...a); if (top > 0) scaleBy(a, top); }
function logAddAll(xs) {
  const top = Math.max(...xs);
  if (!(top > -Infinity)) return -Infinity;
  return top + Math.log(sum(xs.map(x => Math.exp(x - top))));
}

// ---------------------------------------------------------------- one forest
// sum-product with evidence as likelihood vectors (null: none): log P(evidence) and every
// marginal. A subtree without evidence below a parent sends no message (its CPT rows sum
// to one; a score's rows, a weighted naive Bayes's, then drop an unobserved feature)
function forest(c, lam) {
  const up = new Array(N), msg = new Array(N).fill(null), has = new Array(N).fill(false);
  let logZ = 0;
  for (let o = c.order.length - 1; o >= 0; o--) {  // leaves to roots
    const v = c.order[o], k = K[v];
    const b = lam[v] ? lam[v].slice() : new Array(k).fill(1);
    has[v] = !!lam[v];
    for (const ch of c.children[v]) {
      if (!msg[ch]) continue;
      has[v] = true;
      const m = msg[ch];
      for (let x = 0; x < k; x++) b[x] *= m[x];
      const top = Math.max(...b);  // rescaled, so that long products cannot underflow
      if (top === 0) return null;
      scaleBy(b, top); logZ += Math.log(top);
    }
    up[v] = b;
    const T = c.cpt[v];
    if (c.parent[v] >= 0) {
      if (!has[v]) continue;
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
        if (ch === v || !msg[ch]) continue;
        for (let y = 0; y < q.length; y++) q[y] *= msg[ch][y];
        rescale(q);
      }
      rescale(q);  // (a no-op after a sibling's) an observed parent's row: exactly its CPT's
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

// max-product in logs: log max_x P(x, evidence) and the maximiser (ties to the first
// state in state order, as tl's map_query)
function forestMax(c, lam) {
  const msg = new Array(N), arg = new Array(N), state = new Array(N).fill(-1);
  let total = 0;
  for (let o = c.order.length - 1; o >= 0; o--) {  // leaves to roots
    const v = c.order[o], k = K[v], b = new Array(k);
    for (let x = 0; x < k; x++) b[x] = Math.log(lam[v] ? lam[v][x] : 1);
    for (const ch of c.children[v]) for (let x = 0; x < k; x++) b[x] += msg[ch][x];
    const T = c.cpt[v], rows = c.parent[v] >= 0 ? T.length : 1;
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

// a forest's fixed variables (c.fixed: [[variable, state], ...]) observed at their states
// (a likelihood kept as the state's weight); null where the evidence says otherwise
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

// ---------------------------------------------------------------- the numbers
// A forest of regressions (G[v]: {parent, a, b, s2}: N(a + b x_parent, s2); or {parent,
// means, vars}: one Gaussian per state of a discrete parent). Upward, each subtree's
// likelihood of the numbers as exp(-J x^2 / 2 + h x + c) of its parent, one log-density
// per state where the parent is discrete (attach: a likelihood of that variable).
function gaussUp(nums, G) {
  const J = new Array(N).fill(0), H = new Array(N).fill(0), C = new Array(N).fill(0);
  const mJ = new Array(N).fill(0), mH = new Array(N).fill(0), attach = {};
  let logConst = 0;
  for (let o = gaussOrder.length - 1; o >= 0; o--) {
    const v = gaussOrder[o], g = G[v], p = gparent[v];
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
    if (g.means) {
      const logs = g.means.map((m, a) => one(m, 0, g.vars[a])[2]);
      attach[p] = attach[p] ? attach[p].map((x, a) => x + logs[a]) : logs;
    } else if (p < 0) logConst += one(g.a, 0, g.s2)[2];
    else {
      const [jm, hm, cm] = one(g.a, g.b, g.s2);
      mJ[v] = jm; mH[v] = hm; J[p] += jm; H[p] += hm; C[p] += cm;
    }
  }
  return { J: J, H: H, mJ: mJ, mH: mH, attach: attach, logConst: logConst, G: G };
}
// downward, per state of the subtree's discrete parent: each number given the numbers
// outside its subtree, times its subtree's likelihood; its posterior the mixture over those
// states, weighted by that variable's posterior
function gaussDown(up, marg, nums) {
  const G = up.G, pm = new Array(N), pv = new Array(N);
  for (const v of gaussOrder) {
    const g = G[v], p = gparent[v];
    if (g.means) { pm[v] = g.means.slice(); pv[v] = g.vars.slice(); }
    else if (p < 0) { pm[v] = [g.a]; pv[v] = [g.s2]; }
    else if (p in nums) { pm[v] = pm[p].map(() => g.a + g.b * nums[p]); pv[v] = pv[p].map(() => g.s2); }
    else {
      const jx = pv[p].map(x => 1 / x + up.J[p] - up.mJ[v]);
      const hx = pm[p].map((m, j) => m / pv[p][j] + up.H[p] - up.mH[v]);
      pm[v] = jx.map((x, j) => g.a + g.b * hx[j] / x); pv[v] = jx.map(x => g.b * g.b / x + g.s2);
    }
    if (v in nums) { marg[v] = { observed: nums[v] }; continue; }
    const prec = pv[v].map(x => 1 / x + up.J[v]);
    marg[v] = { weights: gattach[v] >= 0 ? marg[gattach[v]].slice() : [1],
                means: prec.map((q, j) => (pm[v][j] / pv[v][j] + up.H[v]) / q),
                variances: prec.map(q => 1 / q) };
  }
}

// One joint Gaussian of the numbers per state of S.mvn.cls (N(means[c], covs[c])). Given
// numbers x_O, per class: a Cholesky factor L of covs[c][O][O] gives log N(x_O; ...) (a
// likelihood of the class) and, for every other number u, the conditional Gaussian
// mean_u + w . z, var_uu - w . w with z = L^-1 (x_O - mean_O), w = L^-1 covs[c][O][u].
function mvnUp(nums) {
  const M = S.mvn, obs = numbers.filter(v => v in nums), free = numbers.filter(v => !(v in nums));
  const n = obs.length, logs = [], cond = [];
  for (let c = 0; c < M.means.length; c++) {
    const mu = M.means[c], C = M.covs[c], L = obs.map(() => new Array(n).fill(0));
    let logDet = 0;
    for (let j = 0; j < n; j++) {  // Cholesky of the observed block: C_OO = L L^T
      let s = C[obs[j]][obs[j]];
      for (let m = 0; m < j; m++) s -= L[j][m] * L[j][m];
      if (!(s > 0)) return null;  // never for a fitted model (its covariances are checked)
      L[j][j] = Math.sqrt(s);
      logDet += Math.log(L[j][j]);
      for (let i = j + 1; i < n; i++) {
        let t = C[obs[i]][obs[j]];
        for (let m = 0; m < j; m++) t -= L[i][m] * L[j][m];
        L[i][j] = t / L[j][j];
      }
    }
    const solve = b => {  // L^-1 b, forward substitution
      const z = new Array(n);
      for (let i = 0; i < n; i++) {
        let t = b[i];
        for (let m = 0; m < i; m++) t -= L[i][m] * z[m];
        z[i] = t / L[i][i];
      }
      return z;
    };
    const z = solve(obs.map(v => nums[v] - mu[v]));
    let maha = 0;
    for (const x of z) maha += x * x;
    logs.push(-0.5 * maha - logDet - 0.5 * n * Math.log(2 * Math.PI));
    const given = {};
    for (const u of free) {
      const w = solve(obs.map(v => C[v][u]));
      let mean = mu[u], v2 = C[u][u];
      for (let i = 0; i < n; i++) { mean += w[i] * z[i]; v2 -= w[i] * w[i]; }
      given[u] = [mean, Math.max(v2, 0)];
    }
    cond.push(given);
  }
  return { attach: { [M.cls]: logs }, logConst: 0, cond: cond };
}
function mvnDown(up, marg, nums) {
  for (const v of numbers) {
    if (v in nums) { marg[v] = { observed: nums[v] }; continue; }
    marg[v] = { weights: marg[S.mvn.cls].slice(), means: up.cond.map(g => g[v][0]),
                variances: up.cond.map(g => g[v][1]) };
  }
}
// the numbers' densities (gaussUp's, mvnUp's) as likelihoods: a copy of lam with each
// attachment's densities (scaled to a maximum of 1), and the log of what was removed;
// null where the numbers are impossible
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

// ---------------------------------------------------------------- the whole model
function likelihoods(ev, sf) {
  return V.map((v, i) => {
    if (i in ev) { const l = new Array(K[i]).fill(0); l[ev[i]] = 1; return l; }
    return i in sf ? sf[i].slice() : null;
  });
}
// the forests that count, each with its weight: every one consistent with the conditioner;
// a selective average's, those of the lowest tier whose fixed variables are all observed
function counted(ev, sf) {
  let js = S.components.map((c, j) => j);
  if (S.select) {
    const on = js.filter(j => (S.components[j].fixed || []).every(([v, s]) => ev[v] === s));
    const tier = Math.min(...on.map(j => S.components[j].tier || 0));
    js = on.filter(j => (S.components[j].tier || 0) === tier);
  }
  const out = [];
  for (const j of js) {
    if (S.cond >= 0 && S.cond in ev && ev[S.cond] !== j) continue;
    // the conditioner is no forest's variable: its likelihood weights the forests
    const w = S.components[j].weight * (S.cond >= 0 && !(S.cond in ev) && S.cond in sf ? sf[S.cond][j] : 1);
    if (w > 0) out.push([j, w]);
  }
  return [out, S.select ? Math.log(js.length) : 0];
}

// log P(evidence) and every marginal: ev hard evidence, sf likelihoods (as tl's
// evidence={"X": [w0, w1]}; a state wins), nums the numbers given; null if impossible.
// A selective average's bars of a variable it may fix: the estimate with each state added.
function infer(ev, sf = soft, nums = numeric, bars = true) {
  const lam = likelihoods(ev, sf);
  // the numbers' densities, the same for every forest (else each forest's own, below)
  const shares = S.mvn || (G0 && !S.components[0].gauss);
  const shared = S.mvn ? mvnUp(nums) : shares ? gaussUp(nums, G0) : null;
  let lamAll = lam, removed = 0;
  if (shares) {
    const t = shared && withDensities(shared, lam);
    if (!t) return null;
    lamAll = t.lam; removed = t.removed;
  }
  const [forests, mean] = counted(ev, sf), runs = [], logw = [];
  for (const [j, w] of forests) {
    const c = S.components[j];
    let lamC = lamAll, up = shared, extra = 0;
    if (c.gauss) {  // a forest with its own Gaussians (a multinet of CLG trees)
      up = gaussUp(nums, c.gauss);
      const t = withDensities(up, lam);
      if (!t) continue;
      lamC = t.lam; extra = t.removed;
    }
    const lc = fixedLam(c, lamC, ev);
    if (!lc) continue;
    const r = forest(c, lc);
    if (r) { runs.push([j, r, up]); logw.push(Math.log(w) + r.logZ + extra); }
  }
  if (!runs.length) return null;
  const top = Math.max(...logw);
  const w = logw.map(x => Math.exp(x - top)), tw = sum(w);
  const marg = V.map((v, i) => new Array(K[i]).fill(0));
  runs.forEach(([j, r], n) => {
    const a = w[n] / tw;
    for (let i = 0; i < N; i++) {
      if (i === S.cond) marg[i][j] += a;
      else if (r.marg[i]) for (let x = 0; x < K[i]; x++) marg[i][x] += a * r.marg[i][x];
    }
  });
  for (const i in ev) { marg[i].fill(0); marg[i][ev[i]] = 1; }
  if (bars) for (const v of selective) {
    if (v in ev) continue;
    const scores = V[v].states.map((_, s) => {
      const r = infer(Object.assign({}, ev, { [v]: s }), sf, nums, false);
      return r ? r.logZ : -Infinity;
    });
    const t = logAddAll(scores);
    marg[v] = scores.map(x => Math.exp(x - t));
  }
  if (shared) (S.mvn ? mvnDown : gaussDown)(shared, marg, nums);
  else if (numbers.length) {  // each number: the mixture over the forests of theirs
    const per = runs.map(([, r, up]) => { const m = r.marg.slice(); gaussDown(up, m, nums); return m; });
    for (const v of numbers) {
      if (v in nums) { marg[v] = { observed: nums[v] }; continue; }
      const q = { weights: [], means: [], variances: [] };
      per.forEach((m, n) => m[v].weights.forEach((x, s) => {
        q.weights.push(w[n] / tw * x); q.means.push(m[v].means[s]); q.variances.push(m[v].variances[s]);
      }));
      marg[v] = q;
    }
  }
  return { logZ: top + Math.log(tw) + removed - mean, marg: marg };
}

// the most probable completion: the best forest's, weighted as in infer
function mapQuery(ev, sf = soft) {
  const lam = likelihoods(ev, sf);
  let best = null;
  for (const [j, w] of counted(ev, sf)[0]) {
    const lc = fixedLam(S.components[j], lam, ev);
    if (!lc) continue;
    const r = forestMax(S.components[j], lc), logp = Math.log(w) + r.logp;
    if (!(logp > -Infinity) || (best && !(logp > best.logp))) continue;
    if (S.cond >= 0) r.state[S.cond] = j;
    best = { logp: logp, state: r.state };
  }
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

// each piece of evidence's share of the target's log-odds (its most probable state): exact
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
  const exact = p <= 10;
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
  const given = pt.map((p, t) => (p > 0 ? infer(Object.assign({}, ev, { [target]: t }), sf) : null));
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
