"""The fitted model: log-likelihood (complete, impossible and incomplete rows), BIC,
AIC, parameter counts, sampling, exact queries against pgmpy, equality (whatever the
order of the variables or of a CPT's parent axes) and the text headline."""

from __future__ import annotations

import itertools
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import expect, pgmpy_sample, random_dependent_frame, tiny_frame
from oracles import log_joint_probability, marginal_probability

import treelearn as tl


@pytest.fixture(scope="module")
def asia():
    return pgmpy_sample("asia", 3000, seed=1)


def test_loglik_per_row_by_lookup(asia):
    m = tl.chow_liu(asia, alpha=0.5)
    per_row = m.log_likelihood(asia.head(50), per_row=True)
    assert per_row.shape == (50,)
    for r, (_, row) in enumerate(asia.head(50).iterrows()):
        assert per_row[r] == pytest.approx(log_joint_probability(m, row.to_dict()), abs=1e-12)
    assert m.log_likelihood(asia.head(50)) == pytest.approx(per_row.sum(), abs=1e-10)


@pytest.mark.parametrize("dtype", [np.int8, np.intp])
def test_complete_rows_loglik_is_the_node_by_node_lookup_to_the_bit(dtype):
    # a DAG of 12 variables with families of one to three and 2-4 states, maximum likelihood
    # on few rows (some cells zero: -inf terms); every complete row's log-likelihood is the sum
    # of its nodes' log-CPT entries added in the model's node order, as the lookup above does
    # (more than 8 terms: a pairwise sum would give other doubles), whatever the codes' dtype
    cards = [2, 3, 4, 2, 3, 2, 4, 3, 2, 2, 3, 4]
    rng = np.random.default_rng(7)
    df = random_dependent_frame(60, cards, rng)
    dag = nx.DiGraph(
        [(f"v{i - 1}", f"v{i}") for i in range(1, 12)]
        + [(f"v{i - 2}", f"v{i}") for i in range(2, 12, 3)]
        + [(f"v{i - 3}", f"v{i}") for i in range(5, 12, 3)]
    )
    m = tl.fit_cpts(dag, df, alpha=0.0)
    rows = random_dependent_frame(200, cards, np.random.default_rng(8))
    codes = m.encode(rows).codes.astype(dtype)
    per_row = m.log_likelihood_codes(codes)
    expected = np.array([log_joint_probability(m, row.to_dict()) for _, row in rows.iterrows()])
    np.testing.assert_array_equal(per_row, expected)
    assert np.isneginf(per_row).any() and np.isfinite(per_row).any()  # both kinds of rows
    assert m.log_likelihood_codes(codes[:0]).shape == (0,)


def test_impossible_row_is_minus_inf_under_ml():
    df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["p", "p", "q", "q"]})
    m = tl.chow_liu(df, alpha=0)
    new = pd.DataFrame({"a": ["x", "x"], "b": ["p", "q"]})
    ll = m.log_likelihood(new, per_row=True)
    assert ll[0] == pytest.approx(np.log(0.5))
    assert ll[1] == -np.inf
    assert m.log_likelihood(new) == -np.inf
    # smoothing makes it possible
    assert np.isfinite(tl.chow_liu(df, alpha=1.0).log_likelihood(new))


def test_bic_aic_and_parameter_count_by_hand(asia):
    m = tl.chow_liu(asia, root="smoke")
    k = {c: asia[c].nunique() for c in asia.columns}
    expected_params = sum(
        (k[v] - 1) * int(np.prod([k[p] for p in m.parents(v)])) for v in m.variables
    )
    assert all(kk == 2 for kk in k.values())  # asia: binary, so (k-1)(k_parent) = 2 per edge
    assert expected_params == 1 + 2 * 7
    assert m.n_parameters == expected_params
    ll = m.log_likelihood(asia)
    n = len(asia)
    assert m.bic(asia) == pytest.approx(ll - expected_params / 2 * np.log(n), rel=1e-13)
    assert m.aic(asia) == pytest.approx(ll - expected_params, rel=1e-13)


def test_n_parameters_mixed_cardinality():
    rng = np.random.default_rng(0)
    df = random_dependent_frame(200, [2, 3, 4, 5], rng)
    m = tl.chow_liu(df, root="v2")
    k = dict(zip(df.columns, [2, 3, 4, 5]))
    expected = (4 - 1) + sum((k[v] - 1) * k[m.parents(v)[0]] for v in m.variables if v != "v2")
    assert m.n_parameters == expected


def test_forest_n_parameters_and_bic():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.integers(0, 3, 300), "b": rng.integers(0, 2, 300)})
    m = tl.chow_liu(df, forest="bic")
    assert m.graph.number_of_edges() == 0
    assert m.n_parameters == 2 + 1
    assert m.bic(df) == pytest.approx(m.log_likelihood(df) - 1.5 * np.log(300))


# ---------------------------------------------------------------- missing values
@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_loglik_of_incomplete_rows_sums_out_missing(asia, alpha):
    m = tl.chow_liu(asia, alpha=alpha, root="either")
    rng = np.random.default_rng(2)
    rows = asia.sample(40, random_state=3).reset_index(drop=True).astype(object)
    for r in range(len(rows)):
        holes = rng.random(rows.shape[1]) < (r % 5) / 5  # 0 to 80% missing
        rows.iloc[r, np.flatnonzero(holes)] = None
    rows.iloc[0, :] = None  # nothing observed: log 1 = 0
    ll = m.log_likelihood(rows, per_row=True)
    assert ll[0] == pytest.approx(0.0, abs=1e-12)
    for r in range(len(rows)):
        expected = np.log(marginal_probability(m, rows.iloc[r].to_dict()))
        assert ll[r] == pytest.approx(expected, rel=1e-10, abs=1e-12), r


def test_loglik_incomplete_rows_multi_parent_dag():
    rng = np.random.default_rng(4)
    df = random_dependent_frame(300, [2, 3, 2, 3], rng)
    D = nx.DiGraph([("v0", "v2"), ("v1", "v2"), ("v2", "v3"), ("v1", "v3")])
    m = tl.fit_cpts(D, df, alpha=1.0)
    rows = df.head(20).astype(object)
    for r in range(20):
        rows.iloc[r, np.flatnonzero(rng.random(4) < 0.4)] = np.nan
    ll = m.log_likelihood(rows, per_row=True)
    for r in range(20):
        assert ll[r] == pytest.approx(
            np.log(marginal_probability(m, rows.iloc[r].to_dict())), rel=1e-10
        )


def test_loglik_ignores_extra_columns_and_rejects_missing_ones(asia):
    m = tl.chow_liu(asia)
    extra = asia.assign(other=1.5)
    assert m.log_likelihood(extra) == m.log_likelihood(asia)
    with pytest.raises(tl.ColumnNotFoundError, match="'smoke'"):
        m.log_likelihood(asia.drop(columns="smoke"))
    bad = asia.head(3).copy()
    bad.loc[bad.index[1], "smoke"] = "maybe"
    with pytest.raises(tl.UnseenStateError, match="smoke") as info:
        m.log_likelihood(bad)
    # the advice fits log_likelihood, which has no unseen= option
    assert "unseen=" not in str(info.value) and "'maybe'" in str(info.value)
    bad.loc[bad.index[1], "smoke"] = None  # as the message says: missing is summed out
    assert np.isfinite(m.log_likelihood(bad))


# ---------------------------------------------------------------- sampling
def test_sample_keeps_labels_and_dtypes():
    rng = np.random.default_rng(5)
    n = 400
    base = rng.integers(0, 3, n)
    df = pd.DataFrame(
        {
            "s": np.array(["lo", "mid", "hi"], dtype=object)[base],
            "st": pd.array(np.array(["u", "v", "w"])[(base + 1) % 3], dtype="string"),
            "c": pd.Categorical(
                np.array(["r", "g", "b"])[base], categories=["g", "r", "b", "never"]
            ),
            "b": (base == 1) ^ (rng.random(n) < 0.1),
            "i": (base * 10 - 5).astype(np.int64),
            "i8": (base % 2).astype(np.int8),
            "f": (base + 1).astype(float),  # integer-valued floats
        }
    )
    m = tl.chow_liu(df, alpha=0.1)
    s = m.sample(1000, random_state=0)
    assert list(s.columns) == list(df.columns)
    assert len(s) == 1000
    for c in df.columns:
        assert s[c].dtype == df[c].dtype, c
        assert set(s[c].unique()) <= set(m.states[c]), c
    assert list(s["c"].cat.categories) == ["g", "r", "b", "never"]
    assert set(s["s"]) <= {"lo", "mid", "hi"}
    assert set(s["i"]) <= {-5, 5, 15}
    assert s["b"].dtype == bool
    # the sample is valid input for the model and for learning again
    assert np.isfinite(m.log_likelihood(s))
    tl.chow_liu(s)


def test_sample_is_reproducible_and_converges_to_marginals(asia):
    m = tl.chow_liu(asia, alpha=1.0, root="tub")
    a = m.sample(200_000, random_state=7)
    b = m.sample(200_000, random_state=7)
    pd.testing.assert_frame_equal(a, b)
    assert (a.dtypes == asia.dtypes).all()  # pandas' default string dtype survives
    for v in m.variables:
        exact = m.query([v])
        freq = a[v].value_counts(normalize=True).reindex(exact.index, fill_value=0)
        np.testing.assert_allclose(freq.to_numpy(), exact.to_numpy(), atol=0.005)
    # and pairwise: child given parent frequencies approach the CPT
    for v in m.variables:
        for p in m.parents(v):
            counts = pd.crosstab(a[p], a[v])
            counts = counts.reindex(index=m.states[p], columns=m.states[v], fill_value=0)
            n_parent = counts.sum(axis=1).to_numpy()[:, None]
            freq = counts.to_numpy() / n_parent
            # five standard errors of a frequency over the rows with that parent state
            assert np.all(np.abs(freq - m.cpt(v)) <= 5 * np.sqrt(0.25 / n_parent)), (p, v)


def test_sample_zero_rows_and_bad_n(asia):
    m = tl.chow_liu(asia)
    s = m.sample(0, random_state=0)
    assert s.shape == (0, asia.shape[1])
    with pytest.raises(ValueError):
        m.sample(-1)


def test_sample_categorical_column_with_states_given_in_another_order():
    # the codes index the given states ['hi', 'lo', 'mid'], not the column's categories
    # ['lo', 'hi']: decoding them against the categories swapped 'lo' and 'hi'
    df = pd.DataFrame(
        {
            "c": pd.Categorical(["lo"] * 9 + ["hi"], categories=["lo", "hi"], ordered=True),
            "d": [0] * 9 + [1],
        }
    )
    m = tl.chow_liu(df, states={"c": ["hi", "lo", "mid"]}, alpha=0)
    s = m.sample(2000, random_state=0)
    assert s["c"].cat.categories.tolist() == ["hi", "lo", "mid"] and s["c"].cat.ordered
    # in the data d = 1 exactly when c = 'hi' (1 row in 10); ML keeps both facts
    assert (s["d"] == (s["c"] == "hi").astype(int)).all()
    assert 0.05 < (s["c"] == "hi").mean() < 0.15
    assert (s["c"] == "mid").sum() == 0


# ---------------------------------------------------------------- queries vs pgmpy
def _ve(model):
    from pgmpy.inference import VariableElimination

    return VariableElimination(model.to_pgmpy())


def _pgmpy_query(ve, variables, evidence):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = ve.query(variables, evidence=evidence or None, joint=True, show_progress=False)
    # arrange as [variables in our order]
    values = f.values
    order = [f.variables.index(v) for v in variables]
    values = np.transpose(values, order)
    # pgmpy factors index states by state_names order
    return values, {v: f.state_names[v] for v in variables}


def _check_query(model, ve, variables, evidence):
    ours = model.query(variables, evidence=evidence)
    values, names = _pgmpy_query(ve, variables, evidence)
    for v in variables:
        assert list(names[v]) == list(model.states[v])
    np.testing.assert_allclose(ours.to_numpy(), values.ravel(), rtol=0, atol=1e-10)
    assert ours.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_query_equals_pgmpy_variable_elimination_asia(asia, alpha):
    m = tl.chow_liu(asia, alpha=alpha, root="dysp")
    ve = _ve(m)
    cases = [
        (["lung"], {}),
        (["lung"], {"smoke": "yes"}),
        (["either"], {"xray": "no", "dysp": "yes"}),
        (["tub", "lung"], {}),
        (["smoke", "bronc", "asia"], {"dysp": "no"}),
        (["asia"], {"xray": "yes", "bronc": "yes", "smoke": "no"}),
    ]
    for variables, evidence in cases:
        _check_query(m, ve, variables, evidence)


def test_query_equals_pgmpy_mixed_states_and_forest():
    rng = np.random.default_rng(8)
    df = random_dependent_frame(300, [2, 3, 4, 3, 2, 4], rng)
    df["v1"] = df["v1"].map({0: "a", 1: "b", 2: "c"})
    for forest in (None, 0.02):
        m = tl.chow_liu(df, alpha=0.5, forest=forest)
        ve = _ve(m)
        vs = list(m.variables)
        for q in range(len(vs)):
            _check_query(m, ve, [vs[q]], {})
            _check_query(
                m, ve, [vs[q]], {vs[(q + 2) % len(vs)]: m.states[vs[(q + 2) % len(vs)]][1]}
            )
        _check_query(m, ve, ["v0", "v3"], {"v1": "c", "v5": 3})
        _check_query(m, ve, ["v5", "v2", "v4"], {})


def test_query_multi_parent_dag_equals_pgmpy():
    rng = np.random.default_rng(9)
    df = random_dependent_frame(300, [2, 3, 2, 3, 2], rng)
    D = nx.DiGraph([("v0", "v3"), ("v1", "v3"), ("v2", "v3"), ("v0", "v1"), ("v3", "v4")])
    m = tl.fit_cpts(D, df, alpha=1.0)
    ve = _ve(m)
    _check_query(m, ve, ["v4"], {"v0": 1})
    _check_query(m, ve, ["v0", "v2"], {"v4": 0})
    _check_query(m, ve, ["v3"], {})


def test_query_labels_and_joint_false(asia):
    m = tl.chow_liu(asia, alpha=1.0)
    single = m.query(["lung"], evidence={"smoke": "yes"})
    assert list(single.index) == m.states["lung"]
    joint = m.query(["lung", "tub"])
    assert joint.index.names == ["lung", "tub"]
    assert list(joint.index) == list(itertools.product(m.states["lung"], m.states["tub"]))
    sep = m.query(["lung", "tub"], joint=False)
    assert set(sep) == {"lung", "tub"}
    np.testing.assert_allclose(sep["lung"].to_numpy(), joint.groupby(level="lung").sum().to_numpy())
    assert m.query("lung").equals(m.query(["lung"]))


def test_query_errors(asia):
    m = tl.chow_liu(asia)
    with pytest.raises(tl.ColumnNotFoundError, match="'nope'"):
        m.query(["nope"])
    with pytest.raises(tl.ColumnNotFoundError, match="'nope'"):
        m.query(["lung"], evidence={"nope": "yes"})
    with pytest.raises(tl.UnseenStateError, match="'smoke'"):
        m.query(["lung"], evidence={"smoke": "sometimes"})
    with pytest.raises(tl.TreelearnError):
        m.query(["lung"], evidence={"lung": "yes"})


def test_query_with_non_string_states():
    df = pd.DataFrame({"a": [True, False, True, True], "b": [1, 2, 2, 1]})
    m = tl.chow_liu(df, alpha=1.0)
    post = m.query(["b"], evidence={"a": True})
    assert list(post.index) == [1, 2]
    # P(b | a=True): counts b=1: 2, b=2: 1, smoothed (2+1)/(3+2), (1+1)/(3+2)
    np.testing.assert_allclose(post.to_numpy(), [3 / 5, 2 / 5])
    with pytest.raises(tl.UnseenStateError):
        m.query(["b"], evidence={"a": 1})  # 1 is not the bool state True


def test_query_with_tuple_and_integer_column_names():
    # a tuple that names a variable is that variable, not a list of two variables
    df = pd.DataFrame({("g", 1): ["u", "v", "v", "v"], 0: [1, 2, 2, 1]})
    m = tl.chow_liu(df, alpha=0)
    # P(('g', 1) | 0 = 2): rows with 0 = 2 are v, v -> v with probability 1
    assert m.query(("g", 1), evidence={0: 2}).to_dict() == {"u": 0.0, "v": 1.0}
    # P(0 | ('g', 1) = v): 0 is 2, 2, 1 -> 1/3, 2/3
    post = m.query(0, evidence={("g", 1): "v"})
    np.testing.assert_allclose(post.to_numpy(), [1 / 3, 2 / 3])
    assert m.log_likelihood(df) == pytest.approx(
        np.log(1 / 4) + 3 * np.log(3 / 4) + np.log(1) + np.log(1 / 3) + 2 * np.log(2 / 3), abs=1e-12
    )


def test_loglik_incomplete_rows_on_a_long_chain_does_not_underflow():
    # P(row) is far below the smallest float; the sum-product pass must stay in logs
    from conftest import sample_tree_network
    from scipy.special import logsumexp

    rng = np.random.default_rng(10)
    d = 2000
    edges = [(j, j + 1) for j in range(d - 1)]
    cpts = {0: np.array([0.5, 0.5])}
    for j in range(1, d):
        cpts[j] = np.array([[0.6, 0.4], [0.3, 0.7]])
    names = [f"x{j}" for j in range(d)]
    df = sample_tree_network(edges, cpts, 50, rng, names)
    D = nx.DiGraph([(names[u], names[v]) for u, v in edges])
    m = tl.fit_cpts(D, df, alpha=1.0)
    rows = df.head(5).astype(object)
    completions = []
    for r in range(5):
        hidden = [names[j] for j in rng.choice(d, size=2, replace=False)]
        rows.loc[r, hidden] = None
        for combo in itertools.product([0, 1], repeat=2):
            full = df.iloc[[r]].copy()
            full.loc[:, hidden] = np.array(combo)[None, :]
            completions.append(full)
    # one call for every completion (encoding 2000 columns is the slow part)
    complete = m.log_likelihood(pd.concat(completions), per_row=True).reshape(5, 4)
    assert np.all(complete < -1000)  # exp() of these underflows to 0
    expected = logsumexp(complete, axis=1)
    ll = m.log_likelihood(rows, per_row=True)
    np.testing.assert_allclose(ll, expected, rtol=1e-12)


def test_query_equals_pgmpy_on_alarm_tree():
    df = pgmpy_sample("alarm", 2000, seed=4)
    m = tl.chow_liu(df, alpha=1.0)
    ve = _ve(m)
    vs = m.variables
    _check_query(m, ve, [vs[5]], {})
    _check_query(m, ve, [vs[10], vs[20]], {vs[0]: m.states[vs[0]][0], vs[30]: m.states[vs[30]][-1]})
    _check_query(m, ve, [vs[36]], {vs[1]: m.states[vs[1]][1]})


def test_query_with_impossible_evidence():
    df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["p", "p", "q", "q"], "c": [0, 1, 0, 1]})
    m = tl.chow_liu(df, alpha=0)  # maximum likelihood: b = q never happens with a = x
    with pytest.raises(tl.TreelearnError, match="probability zero"):
        m.query(["c"], evidence={"a": "x", "b": "q"})
    assert m.query(["c"], evidence={"a": "x", "b": "p"}).sum() == pytest.approx(1.0)


def test_general_dag_incomplete_rows_and_queries_bundled_alarm():
    # alarm has nodes with 2+ parents besides any single node: the general elimination path
    from conftest import pgmpy_example

    bn = pgmpy_example("alarm")
    m = tl.from_pgmpy(bn)
    rows = pgmpy_sample("alarm", 12, seed=5).astype(object)
    rng = np.random.default_rng(6)
    for r in range(len(rows)):
        rows.iloc[r, rng.choice(rows.shape[1], size=r % 4, replace=False)] = None
    ll = m.log_likelihood(rows, per_row=True)
    for r in range(len(rows)):
        expected = np.log(marginal_probability(m, rows.iloc[r].to_dict()))
        assert ll[r] == pytest.approx(expected, rel=1e-10), r
    from pgmpy.inference import VariableElimination

    # the bundled CPDs sum to 1 only within 1e-7, and pgmpy's VE prunes barren nodes
    # (exact only for normalised CPDs): compare on a normalised copy
    bn = bn.copy()
    for cpd in bn.get_cpds():
        cpd.normalize(inplace=True)
    m = tl.from_pgmpy(bn)
    ve = VariableElimination(bn)
    _check_query(m, ve, ["HYPOVOLEMIA"], {"BP": "LOW"})
    _check_query(m, ve, ["LVFAILURE", "HISTORY"], {"CVP": "HIGH", "HRBP": "NORMAL"})


def test_bic_aic_equal_pgmpy_structure_scores(asia):
    from pgmpy.estimators import AIC, BIC
    from pgmpy.models import DiscreteBayesianNetwork

    rng = np.random.default_rng(11)
    mixed = random_dependent_frame(500, [2, 3, 4, 3, 2], rng)
    for df in (asia, mixed):
        m = tl.chow_liu(df, alpha=0)  # pgmpy's scores are of the maximum-likelihood fit
        dag = DiscreteBayesianNetwork(list(m.graph.edges))
        dag.add_nodes_from(m.variables)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bic, aic = BIC(df).score(dag), AIC(df).score(dag)
        assert m.bic(df) == pytest.approx(bic, rel=1e-12)
        assert m.aic(df) == pytest.approx(aic, rel=1e-12)


def test_model_rejects_a_parent_listed_twice():
    G = nx.DiGraph([("a", "b")])
    G.nodes["a"].update(states=[0, 1], cpt=np.array([0.5, 0.5]))
    G.nodes["b"].update(states=[0, 1], cpt=np.full((2, 2, 2), 0.5), parents=["a", "a"])
    with pytest.raises(tl.StructureError, match="'b'"):
        tl.TreeModel(G)


def test_query_on_a_long_chain_equals_matrix_powers():
    # v0 -> v1 -> ... -> v399 with one transition matrix: P(v_k | v_0) is a row of T^k
    d, T = 400, np.array([[0.9, 0.1], [0.3, 0.7]])
    G = nx.DiGraph([(f"v{i}", f"v{i + 1}") for i in range(d - 1)])
    G.nodes["v0"].update(states=["a", "b"], cpt=np.array([0.2, 0.8]))
    for i in range(1, d):
        G.nodes[f"v{i}"].update(states=["a", "b"], cpt=T)
    m = tl.TreeModel(G, variables=[f"v{i}" for i in range(d)])
    post = m.query("v399", evidence={"v0": "b"})
    np.testing.assert_allclose(post.to_numpy(), np.linalg.matrix_power(T, 399)[1], atol=1e-12)
    # evidence at both ends: P(v200 | v0 = a, v399 = b) by Bayes' rule on the two halves
    left, right = np.linalg.matrix_power(T, 200)[0], np.linalg.matrix_power(T, 199)[:, 1]
    post = m.query("v200", evidence={"v0": "a", "v399": "b"})
    np.testing.assert_allclose(post.to_numpy(), left * right / (left @ right), atol=1e-12)


def _wide_naive_bayes_with_a_v_structure(d):
    """y -> f_i (i < d), plus z with parents f0, f1: not a tree, not TAN (the general path)."""
    F = np.array([[0.9, 0.1], [0.2, 0.8]])  # P(f | y)
    Z = np.array([[[0.7, 0.3], [0.4, 0.6]], [[0.5, 0.5], [0.1, 0.9]]])  # P(z | f0, f1)
    G = nx.DiGraph([("y", f"f{i}") for i in range(d)] + [("f0", "z"), ("f1", "z")])
    G.nodes["y"].update(states=[0, 1], cpt=np.array([0.5, 0.5]))
    for i in range(d):
        G.nodes[f"f{i}"].update(states=[0, 1], cpt=F)
    G.nodes["z"].update(states=[0, 1], cpt=Z, parents=["f0", "f1"])
    return tl.TreeModel(G, variables=["y", *[f"f{i}" for i in range(d)], "z"]), F, Z


def test_general_dag_with_many_factors_and_tiny_probabilities():
    # 1000 features: eliminating y multiplies 1000 factors (numpy's einsum takes at
    # most 64), and P(x) is about e^-900, below the smallest double
    d = 1000
    m, F, Z = _wide_naive_bayes_with_a_v_structure(d)
    x = np.arange(d) % 2  # f0 = 0, f1 = 1, ...
    by_class = np.log(0.5) + np.array([np.log(F[c, x]).sum() for c in (0, 1)])
    row = {"y": None, **{f"f{i}": int(x[i]) for i in range(d)}, "z": 1}
    expected = np.logaddexp.reduce(by_class) + np.log(Z[0, 1, 1])
    assert expected < np.log(np.finfo(float).tiny)  # the case: P(x) underflows
    got = m.log_likelihood(pd.DataFrame([row], dtype=object))
    assert got == pytest.approx(expected, rel=1e-12)
    # the class posterior given every feature: softmax of by_class (z is independent of y here)
    evidence = {k: v for k, v in row.items() if k != "y"}
    post = m.query("y", evidence=evidence)
    np.testing.assert_allclose(
        post.to_numpy(), np.exp(by_class - np.logaddexp.reduce(by_class)), rtol=1e-10
    )


# ---------------------------------------------------------------------------------- hostile inputs
TINY = tiny_frame()  # four rows: text, numbers, booleans


def test_sample_guards():
    model = tl.chow_liu(TINY)
    expect(tl.ResourceLimitError, "GiB", model.sample, 10**12)
    for n in (-1, 2.5, 1.5, True, np.bool_(True), "3", None):
        expect(tl.TreelearnError, f"n == {n!r}, must be an integer >= 0", model.sample, n)
    assert len(model.sample(np.int64(3))) == len(model.sample(3)) == 3  # numpy integers are
    assert len(model.sample(0)) == 0  # integers
    expect(
        tl.TreelearnError,
        "evidence == 7, must be None or a dict",
        lambda: model.sample(3, evidence=7),
    )


# ------------------------------------------------------------------ equality and the text headline
def test_equality_does_not_depend_on_the_order_of_variables_or_parent_axes():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.integers(0, 3, (200, 3)), columns=list("abc"))
    model = tl.fit_cpts(nx.DiGraph([("a", "c"), ("b", "c")]), df, alpha=1.0)
    reordered = tl.TreeModel(model.graph.copy(), variables=["c", "b", "a"])
    assert reordered == model and model == reordered
    # the same CPT with its parent axes swapped: the same distribution
    g = model.graph.copy()
    g.nodes["c"]["parents"] = ["b", "a"]
    g.nodes["c"]["cpt"] = np.transpose(model.cpt("c"), (1, 0, 2))
    assert tl.TreeModel(g, variables=list(model.variables)) == model
    # ... and a different number is a different model
    g.nodes["c"]["cpt"] = g.nodes["c"]["cpt"][:, :, ::-1].copy()
    assert tl.TreeModel(g, variables=list(model.variables)) != model


def test_headline_names_every_root_and_counts_in_words():
    df = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 1], "c": [0, 1, 0, 1]})
    g = nx.DiGraph([("a", "b")])
    g.add_node("c")
    forest = tl.fit_cpts(g, df).to_text().splitlines()[0]
    assert "3 variables, 1 edge, roots ['a', 'c']" in forest
    tree = tl.chow_liu(df[["a", "b"]]).to_text().splitlines()[0]
    assert "2 variables, 1 edge, root 'a'" in tree
