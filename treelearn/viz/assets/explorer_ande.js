// A2DE's page (explorer.js's infer calls andeInfer for S.ande): the classifier's own
// estimate of P(y, x_observed), evaluated here from its tables (nulls are log 0):
//   the mean over pairs i < j of observed features whose states qualify (q3) of
//   P(y, x_i, x_j) prod_{l observed, l != i, j} P(x_l | y, x_i, x_j);
//   with no such pair AODE's mean over qualifying observed super-parents (q1) of
//   P(y, x_i) prod_{j observed, j != i} P(x_j | y, x_i); with none, naive Bayes.
// A feature-weighted naive Bayes's page (WANBIA, AWNB, MANB) has the last term alone,
// each feature's log-probability times its weight (S.ande.weights).
// It is no joint distribution (a missing super-parent is dropped, not summed out): the
// class posterior is that estimate normalised over the classes (predict_proba), and an
// unobserved feature's bars are the estimate with that feature added, normalised over
// its states.
const LOG0 = x => (x === null ? -Infinity : x);
function logAddAll(xs) {
  const top = Math.max(...xs);
  if (!(top > -Infinity)) return -Infinity;
  let s = 0;
  for (const x of xs) s += Math.exp(x - top);
  return top + Math.log(s);
}
// log Ĵ(y, x) per class; x: a state index per feature, or -1 where missing
function andeJoint(x) {
  const A = S.ande, k = A.prior.length, pos = [], obs = [];
  x.forEach((s, v) => { if (s >= 0) { obs.push(v); pos[v] = A.offsets[v] + s; } });
  const mean = terms => terms.length ?
    [...Array(k).keys()].map(c => logAddAll(terms.map(t => t[c])) - Math.log(terms.length)) : null;
  const pairs = [];
  if (A.pair3) for (let a = 0; a < obs.length; a++) for (let b = a + 1; b < obs.length; b++) {
    const i = obs[a], j = obs[b], pi = pos[i], pj = pos[j];
    if (!A.q3[pi][pj]) continue;
    pairs.push([...Array(k).keys()].map(c => {
      let t = LOG0(A.pair3[c][pi][pj]);
      const row = A.cond3[c][pi][pj];
      for (const l of obs) if (l !== i && l !== j) t += LOG0(row[pos[l]]);
      return t;
    }));
  }
  const two = mean(pairs);
  if (two) return two;
  const ones = [];
  if (A.pair1) for (const i of obs) {
    const pi = pos[i];
    if (!A.q1[pi]) continue;
    ones.push([...Array(k).keys()].map(c => {
      let t = LOG0(A.pair1[c][pi]);
      for (const j of obs) if (j !== i) t += LOG0(A.cond1[c][pi][pos[j]]);
      return t;
    }));
  }
  const one = mean(ones);
  if (one) return one;
  return [...Array(k).keys()].map(c => {
    let t = LOG0(A.prior[c]);
    for (const j of obs) {  // a weight of 0 drops the feature (0 x log 0 is no -inf)
      const wj = A.weights ? A.weights[j] : 1;
      if (wj !== 0) t += wj * LOG0(A.nb[c][pos[j]]);
    }
    return t;
  });
}
// hard evidence only (A2DE has no likelihood evidence): log Ĵ(evidence) and the bars
function andeInfer(ev) {
  const cls = S.target, d = cls;
  const x = [...Array(d).keys()].map(v => (v in ev ? ev[v] : -1));
  const masked = J => J.map((t, c) => (cls in ev && ev[cls] !== c ? -Infinity : t));
  const J = masked(andeJoint(x)), logZ = logAddAll(J);
  if (!(logZ > -Infinity)) return null;
  const marg = V.map((v, i) => new Array(K[i]).fill(0));
  marg[cls] = J.map(t => Math.exp(t - logZ));
  for (let v = 0; v < d; v++) {
    if (v in ev) { marg[v][ev[v]] = 1; continue; }
    const scores = V[v].states.map((_, s) => {
      const y = x.slice(); y[v] = s;
      return logAddAll(masked(andeJoint(y)));
    });
    const top = logAddAll(scores);
    marg[v] = scores.map(t => Math.exp(t - top));
  }
  return { logZ: logZ, marg: marg };
}
