"""Gaussian-copula (nonparanormal) trees (issue 25, point 2), against independent checks:
the density integrates to 1 (Gauss-Legendre on every cell between the CDF knots, 2-D),
it is the Gaussian tree on Gaussian data, conditional densities are ratios of the
model's own joint and marginal densities (a different computation: the joint
covariance marginalised), and samples follow the marginals (Kolmogorov-Smirnov)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import treelearn as tl
from treelearn.models._copula import cdf_parts, quadrature


def skewed(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.exponential(size=n)
    b = np.log1p(a) + 0.2 * rng.normal(size=n)
    c = rng.gamma(2.0, size=n) + b
    return pd.DataFrame({"a": a, "b": b, "c": c})


def test_density_integrates_to_one_in_two_dimensions():
    df = skewed(12)[["a", "b"]]
    model = tl.copula_chow_liu(df)
    # Gauss-Legendre on every cell of the knots' grid (tails: 60 scales, in pieces): the
    # density is smooth inside each cell
    xa, wa = quadrature(model.knots["a"], model.scales["a"])
    xb, wb = quadrature(model.knots["b"], model.scales["b"])
    U, V = np.meshgrid(xa, xb, indexing="ij")
    p = np.exp(model.score_samples(pd.DataFrame({"a": U.ravel(), "b": V.ravel()})))
    assert float(np.outer(wa, wb).ravel() @ p) == pytest.approx(1.0, abs=1e-6)
    # and each marginal (the other column integrated out by the model) by scipy's quad
    for col in ("a", "b"):

        def f(x, col=col):
            row = {"a": [np.nan], "b": [np.nan]}
            row[col] = [x]
            return float(np.exp(model.score_samples(pd.DataFrame(row)))[0])

        knots = model.knots[col]
        inner, _ = integrate.quad(f, knots[0], knots[-1], points=list(knots[1:-1]), limit=200)
        tails = integrate.quad(f, -np.inf, knots[0])[0] + integrate.quad(f, knots[-1], np.inf)[0]
        assert inner + tails == pytest.approx(1.0, abs=1e-7)


def test_on_gaussian_data_it_is_the_gaussian_tree():
    rng = np.random.default_rng(1)
    n = 30_000
    x = rng.normal(size=n)
    y = 0.8 * x + 0.6 * rng.normal(size=n)
    z = -0.5 * y + rng.normal(size=n)
    df = pd.DataFrame({"x": x, "y": y, "z": z})
    train, test = df.iloc[:20_000], df.iloc[20_000:]
    copula = tl.copula_chow_liu(train)
    gauss = tl.gaussian_chow_liu(train)
    assert sorted(copula.graph.edges()) == sorted(gauss.graph.edges())
    # the same tree; the nonparametric marginals (equal-mass histograms) cost a little
    # held out against the true family, and nothing of the dependence
    gap = gauss.log_likelihood(test) / len(test) - copula.score(test)
    assert 0 < gap < 0.1
    for u, v in gauss.graph.edges():
        assert copula.graph.edges[u, v]["weight"] == pytest.approx(
            gauss.graph.edges[u, v]["weight"], rel=0.02
        )


def test_beats_the_gaussian_tree_on_skewed_data():
    df = skewed(6000, seed=2)
    train, test = df.iloc[:4000], df.iloc[4000:]
    copula = tl.copula_chow_liu(train).score(test)
    gauss = tl.gaussian_chow_liu(train).log_likelihood(test) / len(test)
    assert copula > gauss + 0.2


def test_conditional_density_is_the_ratio_of_joint_and_marginal():
    model = tl.copula_chow_liu(skewed(800, seed=3))
    q = model.query("c", {"a": 0.7})
    points = np.linspace(model.knots["c"][1], model.knots["c"][-2], 7)
    joint = model.score_samples(pd.DataFrame({"a": 0.7, "b": np.nan, "c": points}))
    marginal = model.score_samples(pd.DataFrame({"a": [0.7], "b": [np.nan], "c": [np.nan]}))
    np.testing.assert_allclose(q.pdf(points), np.exp(joint - marginal), rtol=1e-9)
    x, w = quadrature(model.knots["c"], model.scales["c"])
    assert float(w @ q.pdf(x)) == pytest.approx(1.0, abs=1e-7)
    knots = model.knots["c"]

    def integral(f, upper=np.inf):
        inner = [k for k in knots[1:-1] if k < upper]
        top = min(upper, knots[-1])
        value = integrate.quad(f, -np.inf, knots[0])[0]
        value += integrate.quad(f, knots[0], top, points=inner, limit=500)[0]
        return value + (integrate.quad(f, knots[-1], upper)[0] if upper > knots[-1] else 0.0)

    assert q.mean == pytest.approx(integral(lambda t: t * q.pdf(t)), rel=1e-7)
    assert integral(q.pdf, q.median) == pytest.approx(0.5, abs=1e-7)


def test_samples_follow_the_marginals_and_the_scores_tree():
    df = skewed(2000, seed=4)
    model = tl.copula_chow_liu(df)
    s = model.sample(20_000, random_state=0)
    assert s.equals(model.sample(20_000, random_state=0))
    for col in df.columns:
        knots, F, h = model.knots[col], model.cdf[col], model.scales[col]
        distance = stats.kstest(
            s[col], lambda x, k=knots, F=F, h=h: stats.norm.cdf(cdf_parts(x, k, F, h)[0])
        ).statistic
        assert distance < 0.02
    refit = tl.copula_chow_liu(s)
    assert sorted(refit.graph.edges()) == sorted(model.graph.edges())


def test_save_load_and_checked_fields(tmp_path):
    model = tl.copula_chow_liu(skewed(300))
    model.save(tmp_path / "c.json")
    back = tl.load(tmp_path / "c.json")
    assert isinstance(back, tl.CopulaTreeModel) and back == model
    d = model.to_dict()
    bad = {**d, "cdf": [list(reversed(d["cdf"][0]))] + d["cdf"][1:]}
    with pytest.raises(tl.InvalidModelError, match="rise strictly"):
        tl.CopulaTreeModel.from_dict(bad)
    with pytest.raises(tl.InvalidModelError, match="one entry per variable"):
        tl.CopulaTreeModel.from_dict({**d, "knots": d["knots"][:1]})


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda d: d.assign(k=2.0), "'k' has a single value"),
        (lambda d: d.assign(a=d["a"].where(d.index != 3, np.inf)), "'a'"),
        (lambda d: d.assign(b=d["b"].where(d.index != 3, np.nan)), "'b'"),
    ],
)
def test_bad_columns_are_named(change, match):
    with pytest.raises(tl.TreelearnError, match=match):
        tl.copula_chow_liu(change(skewed(50)))


def test_truncation_is_liu_lafferty_wasserman():
    from treelearn.models._copula import truncation

    n = 5000
    assert truncation(n) == pytest.approx(1 / (4 * n**0.25 * math.sqrt(math.pi * math.log(n))))
