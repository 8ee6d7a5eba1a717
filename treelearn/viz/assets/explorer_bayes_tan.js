// BayesianTAN's page (before explorer.js): the exact average over every TAN feature tree,
// P(c, x | D) = theta_c prod_v theta_v|c(x_v) Z(w o rho_c(x)) / Z(w), for every complete
// assignment x of the features and every class c, into the joint table the discrete page
// sums under the evidence (as a posterior over trees' page). Z is the matrix-tree
// theorem's determinant of the reduced Laplacian, here by eliminating one vertex at a
// time in the log domain (Kron reduction: removing vertex m leaves the Laplacian of the
// weights w_uv + w_mu w_mv / deg_m, and the determinant is the product of the degrees),
// free of cancellation: the log weights span thousands of nats, beyond any rescaling.
if (S.bayes_tan) {
  const B = S.bayes_tan, d = B.cards.length, k = B.prior.length;
  const logAdd = (a, b) => {
    if (a === -Infinity) return b;
    if (b === -Infinity) return a;
    return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
  };
  // log Z of the weights exp(L[u][v]) (u != v; the diagonal is not read); W is scratch
  const W = B.log_w.map(r => r.slice());
  const logTreeSum = L => {
    for (let u = 0; u < d; u++) for (let v = 0; v < d; v++) W[u][v] = L[u][v];
    let total = 0;
    for (let m = 0; m < d - 1; m++) {  // the last vertex is the Laplacian's removed row
      let deg = -Infinity;
      for (let v = m + 1; v < d; v++) deg = logAdd(deg, W[m][v]);
      if (deg === -Infinity) return -Infinity;  // disconnected: no spanning tree
      total += deg;
      for (let u = m + 1; u < d; u++) {
        const a = W[m][u] - deg;
        for (let v = u + 1; v < d; v++) {
          W[u][v] = W[v][u] = logAdd(W[u][v], a + W[m][v]);
        }
      }
    }
    return total;
  };
  const logZ = logTreeSum(B.log_w);
  const rows = [], logp = [];
  const x = new Array(d).fill(0), L = B.log_w.map(r => r.slice());
  for (let done = false; !done;) {
    const idx = x.map((s, v) => B.offsets[v] + s);
    for (let c = 0; c < k; c++) {
      let node = B.prior[c];
      for (let v = 0; v < d; v++) node += B.log_theta[c][idx[v]];
      const R = B.log_rho[c];
      for (let u = 0; u < d; u++) for (let v = 0; v < d; v++) {
        if (u !== v) L[u][v] = B.log_w[u][v] + R[idx[u]][idx[v]];
      }
      rows.push([...x, c]);
      logp.push(node + logTreeSum(L) - logZ);
    }
    let v = d - 1;  // the next assignment, the last feature fastest (itertools.product's order)
    while (v >= 0 && ++x[v] === B.cards[v]) x[v--] = 0;
    done = v < 0;
  }
  S.joint = { rows: rows, p: logp.map(Math.exp) };
  document.body.dataset.jointTotal = String(S.joint.p.reduce((a, b) => a + b, 0));
}
