// a Gaussian classifier's page (with explorer.js, whose infer calls these for S.mvn): each
// class c has one joint Gaussian N(means[c], covs[c]) over the features. Given numbers x_O
// on the observed features O, per class: a Cholesky factor L of covs[c][O][O] gives
// log N(x_O; means[c][O], covs[c][O][O]) (the class's soft evidence, as a CLG subtree's
// density is) and, for every other feature u, the conditional Gaussian
// mean_u + w . z, var_uu - w . w with z = L^-1 (x_O - mean_O), w = L^-1 covs[c][O][u].
function mvnUp(nums) {
  const M = S.mvn, d = M.means[0].length;
  const obs = [], free = [];
  for (let v = 0; v < d; v++) (v in nums ? obs : free).push(v);
  const n = obs.length, logs = [], cond = [];
  for (let c = 0; c < M.means.length; c++) {
    const mu = M.means[c], C = M.covs[c];
    const L = obs.map(() => new Array(n).fill(0));
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

// each unobserved feature's posterior: the mixture over classes of its conditional
// Gaussians, weighted by the class posterior (marg[cls], already computed)
function mvnDown(up, marg, nums) {
  const cls = S.mvn.cls;
  for (const v of S.gauss_order) {
    if (v in nums) { marg[v] = { observed: nums[v] }; continue; }
    marg[v] = { weights: marg[cls].slice(), means: up.cond.map(g => g[v][0]),
                variances: up.cond.map(g => g[v][1]) };
  }
}
