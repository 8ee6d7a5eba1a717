"""The explorer's side panel, checked in headless Chromium: what the page displays in
``#contributions`` (each piece of evidence's share of the target's log-odds) and
``#ask-next`` (the ranked list of what to observe next), after loading evidence from
the URL's fragment and choosing the target in ``select#target``, against treelearn's
Python engine (``explain``, ``most_informative``) and, for the multinet, against a joint
table enumerated from the CPTs alone.
"""

from __future__ import annotations

import html
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from oracles import evidence_weights, joint_rows, shapley_values

import treelearn as tl
from tests.test_explorer import dump_dom, fragment, needs_browser, run_page
from treelearn.viz._explorer import to_html

ASIA = pd.read_csv("datasets/asia.csv")
TOL = 1e-12  # the page's doubles against numpy's: sums of a few logs, round-off only

# For each (fragment, target): load the fragment's evidence, choose the target in the
# panel's select, then copy both lists (their data attributes and items) into the DOM.
HARNESS = """<script>
const PANEL = [];
for (const [frag, name] of %s) {
  history.replaceState(null, "", frag);
  load();
  const sel = document.getElementById("target");
  sel.value = String(V.findIndex(v => v.name === name));
  sel.dispatchEvent(new Event("change"));
  const list = id => {
    const box = document.getElementById(id);
    if (!box) return null;
    return {data: Object.assign({}, box.dataset), items: [...box.querySelectorAll(".item")]
            .map(d => [d.dataset.item, Number(d.dataset.value)])};
  };
  const marginals = {};
  document.querySelectorAll("[data-variable]").forEach(d => {
    marginals[d.dataset.variable] = JSON.parse(d.dataset.marginal); });
  const st = document.getElementById("status");
  PANEL.push({why: list("contributions"), next: list("ask-next"),
              note: (document.querySelector("#why .note") || {}).textContent || null,
              marginals: marginals, evidence: JSON.parse(st.dataset.evidence),
              soft: JSON.parse(st.dataset.soft), log_evidence: Number(st.dataset.logEvidence),
              message: (st.querySelector(".msg") || {}).textContent || null});
}
const out = document.createElement("pre"); out.id = "panel";
out.textContent = JSON.stringify(PANEL); document.body.appendChild(out);
</script></body>"""


def run_panel(obj, tmp_path, cases: list[tuple[dict | str, str]]) -> list[dict]:
    """The page's panel (and marginals) for each (evidence or fragment, target)."""
    frags = [e if isinstance(e, str) else fragment(e) for e, _ in cases]
    return run_page(
        obj,
        tmp_path,
        HARNESS % json.dumps([[f, t] for f, (_, t) in zip(frags, cases)]),
        out="panel",
    )


def check_ask_next(shown: dict, ranked: pd.Series) -> None:
    """The page's list is the top 8 of ``ranked``, in its order, with its values."""
    items = shown["items"]
    assert len(items) == min(8, len(ranked))
    for name, value in items:
        assert value == pytest.approx(ranked[name], abs=TOL)
    values = [v for _, v in items]
    assert values == sorted(values, reverse=True)
    if len(ranked) > 8:  # nothing left out ranks above the last one shown
        assert ranked.drop([n for n, _ in items]).max() <= values[-1] + TOL


def check_why(shown: dict, e, evidence: dict) -> None:
    data = shown["data"]
    assert data["state"] == str(e.target.iloc[0])
    assert float(data["base"]) == pytest.approx(e.base.iloc[0], abs=TOL)
    assert float(data["prediction"]) == pytest.approx(e.prediction.iloc[0], abs=TOL)
    items = dict(shown["items"])
    assert set(items) == {str(v) for v in evidence}
    for v in evidence:
        assert items[str(v)] == pytest.approx(e.values.iloc[0][v], abs=TOL)
    # efficiency: the shares plus the base are the prediction
    assert sum(items.values()) + float(data["base"]) == pytest.approx(
        float(data["prediction"]), abs=TOL
    )


CASES = [
    {"smoke": "yes", "xray": "yes"},
    {"dysp": "no", "asia": "yes", "bronc": "yes"},
    {"tub": "no", "dysp": "yes", "xray": "no", "asia": "no", "bronc": "yes", "smoke": "no"},
]


def page_and_model(kind: str) -> tuple:
    """What the page shows (a Chow-Liu tree, or a TAN classifier) and its network."""
    if kind == "tree":
        model = tl.chow_liu(ASIA)
        return model, model
    clf = tl.TAN().fit(ASIA.drop(columns="either"), ASIA["either"])
    return clf, clf.model_


@needs_browser
@pytest.mark.parametrize("kind", ["tree", "tan"])
def test_panel_equals_explain_and_most_informative(kind, tmp_path):
    X = ASIA.drop(columns="either")
    clf, model = page_and_model(kind)
    targets = ["lung", "either"] if kind == "tree" else ["either", "lung"]
    cases = [(ev, t) for t in targets for ev in [*CASES, {}] if t not in ev]
    cases.append(({"either": "yes"}, "either"))  # the target observed
    results = run_panel(clf, tmp_path, cases)
    for (evidence, t), r in zip(cases, results):
        if t in evidence:
            assert r["why"] is None and r["note"] == "the target is observed"
            assert r["next"]["items"] == []
            continue
        check_ask_next(r["next"], model.most_informative(t, evidence))
        if not evidence:
            assert r["why"] is None and r["note"] == "set evidence to see why"
            continue
        e = model.explain(
            pd.DataFrame([evidence]), t, kind="shapley", output="log_odds", method="exact"
        )
        assert r["why"]["data"]["method"] == "shapley"
        assert r["why"]["data"]["target"] == t
        check_why(r["why"], e, evidence)
        others = [v for v in e.values.columns if v not in evidence]
        assert np.abs(e.values.iloc[0][others].to_numpy()).max() < 1e-12  # unknown: no share
        if kind == "tan" and t == "either":  # the classifier's own explain says the same
            row = pd.DataFrame([{c: evidence.get(c, np.nan) for c in X.columns}])
            ce = clf.explain(row, kind="shapley", output="log_odds", method="exact")
            for v in evidence:
                assert ce.values.iloc[0][v] == pytest.approx(e.values.iloc[0][v], abs=TOL)


@needs_browser
def test_beyond_ten_pieces_the_chain_rule_of_explain(tmp_path):
    alarm = pd.read_csv("datasets/alarm.csv")
    model = tl.chow_liu(alarm)
    target = "HYPOVOLEMIA"
    rows = alarm.drop(columns=target)
    evidence = {v: rows[v].iloc[3] for v in list(rows.columns)[:12]}
    few = dict(list(evidence.items())[:5])
    r_many, r_few = run_panel(model, tmp_path, [(evidence, target), (few, target)])
    e = model.explain(pd.DataFrame([evidence]), target, kind="log_odds")
    assert r_many["why"]["data"]["method"] == "chain"
    check_why(r_many["why"], e, evidence)
    check_ask_next(r_many["next"], model.most_informative(target, evidence))
    e = model.explain(
        pd.DataFrame([few]), target, kind="shapley", output="log_odds", method="exact"
    )
    assert r_few["why"]["data"]["method"] == "shapley"
    check_why(r_few["why"], e, few)
    check_ask_next(r_few["next"], model.most_informative(target, few))


@needs_browser
def test_multinet_panel_matches_brute_force(tmp_path):
    X, y = ASIA.drop(columns="either"), ASIA["either"]
    clf = tl.ChowLiuMultinet().fit(X, y)
    labels = list(clf.models_)
    prior = np.exp(clf.class_log_prior_)
    features = list(clf.models_[labels[0]].variables)
    states = clf.models_[labels[0]].states
    # the joint P(c, x) = prior_c P_c(x) over (class, features), from the CPTs alone
    table = np.zeros([len(labels)] + [len(states[v]) for v in features])
    for c, label in enumerate(labels):
        rows, p = joint_rows(clf.models_[label])
        for r, pr in zip(rows, p):
            table[(c, *r)] = prior[c] * pr
    names = ["either", *features]

    def posterior(ev: dict, of: str) -> np.ndarray:
        keep = table
        for axis, v in reversed(list(enumerate(names))):
            if v in ev:
                keep = np.take(
                    keep,
                    [states[v].index(ev[v]) if v != "either" else labels.index(ev[v])],
                    axis=axis,
                )
        axis = names.index(of)
        p = keep.sum(axis=tuple(a for a in range(keep.ndim) if a != axis))
        return p / p.sum()

    def log_odds(ev: dict, t: int) -> float:
        p = posterior(ev, "either")
        return math.log(p[t]) - np.mean([math.log(p[c]) for c in range(len(p)) if c != t])

    cases = [(ev, "either") for ev in CASES] + [({"smoke": "yes"}, "lung")]
    results = run_panel(clf, tmp_path, cases)
    for (evidence, t), r in zip(cases, results):
        pt = posterior(evidence, t)
        ranked = {}
        for v in names:  # I(T; X | ev) = sum_t P(t | ev) KL(P(X | ev, t) || P(X | ev))
            if v == t or v in evidence:
                continue
            px = posterior(evidence, v)
            tstates = labels if t == "either" else states[t]
            info = sum(
                pt[k] * np.sum(np.where(q > 0, q * np.log(q / px), 0))
                for k, q in ((k, posterior({**evidence, t: s}, v)) for k, s in enumerate(tstates))
            )
            ranked[v] = info
        check_ask_next(r["next"], pd.Series(ranked).sort_values(ascending=False))
        if t != "either":
            continue
        best = int(np.argmax(pt))
        # Shapley values by enumeration of coalitions of the evidence
        phi = shapley_values(
            lambda S, evidence=evidence, best=best: log_odds(
                {k: evidence[k] for k in evidence if k in S}, best
            ),
            list(evidence),
        )
        assert r["why"]["data"]["state"] == str(labels[best])
        assert float(r["why"]["data"]["base"]) == pytest.approx(log_odds({}, best), abs=TOL)
        assert float(r["why"]["data"]["prediction"]) == pytest.approx(
            log_odds(evidence, best), abs=TOL
        )
        for v, x in r["why"]["items"]:
            assert x == pytest.approx(phi[v], abs=1e-10)  # brute force sums 2^p terms


def soft_fragment(hard: dict, soft: dict) -> str:
    parts = []
    if hard:
        parts.append("evidence=" + ",".join(f"{k}:{v}" for k, v in hard.items()))
    if soft:
        parts.append("soft=" + ",".join(f"{k}:" + "|".join(map(repr, w)) for k, w in soft.items()))
    return "#" + "&".join(parts)


SOFT_CASES = [
    ({}, {"xray": [0.2, 0.8]}),
    ({"smoke": "yes"}, {"xray": [0.2, 0.8], "dysp": [0.7, 0.3]}),
    ({"dysp": "no"}, {"lung": [0.4, 0.6], "asia": [1.0, 0.0]}),  # a likelihood on the target
]


@needs_browser
@pytest.mark.parametrize("kind", ["tree", "tan"])
def test_soft_evidence_marginals_why_and_ask_next(kind, tmp_path):
    page, model = page_and_model(kind)
    target = "lung"
    soft_cases = SOFT_CASES + [({"smoke": "no"}, {"either": [0.3, 0.9], "xray": [0.6, 0.4]})]
    cases = [(soft_fragment(h, s), target) for h, s in soft_cases]
    results = run_panel(page, tmp_path, cases)
    for (hard, soft), r in zip(soft_cases, results):
        assert r["evidence"] == hard and r["soft"] == soft and r["message"] is None
        evidence = {**hard, **soft}
        for v, series in model.marginals(evidence).items():
            np.testing.assert_allclose(r["marginals"][v], series.to_numpy(), atol=TOL)
        # P(evidence) = sum_x P(x) [x agrees with the states] prod_v w_v(x_v), by brute force
        weight = sum(evidence_weights(model, hard, soft).values())
        assert r["log_evidence"] == pytest.approx(np.log(weight), abs=1e-10)
        check_ask_next(r["next"], model.most_informative(target, evidence))
        # the shares: Shapley values over the pieces (states and likelihoods), the value of
        # a coalition the target's log-odds from model.query given those pieces only
        post = model.query(target, evidence)
        best = post.idxmax()

        def odds(S, best=best, evidence=evidence):
            q = model.query(target, {k: evidence[k] for k in S})
            return math.log(q[best]) - np.log(q.drop(best).to_numpy()).mean()

        pieces = list(evidence)
        phi = shapley_values(odds, pieces)
        assert r["why"]["data"]["state"] == str(best)
        assert float(r["why"]["data"]["base"]) == pytest.approx(odds(set()), abs=TOL)
        assert float(r["why"]["data"]["prediction"]) == pytest.approx(odds(set(pieces)), abs=TOL)
        assert dict(r["why"]["items"]).keys() == set(pieces)
        for v, x in r["why"]["items"]:
            assert x == pytest.approx(phi[v], abs=TOL)


@needs_browser
def test_soft_evidence_sliders_and_bad_likelihoods(tmp_path):
    model = tl.chow_liu(ASIA)
    sliders = """<script>
    load();
    const pick = document.getElementById("soft-variable");
    pick.value = String(V.findIndex(v => v.name === "xray"));
    pick.dispatchEvent(new Event("change"));
    const inputs = [...document.querySelectorAll("#soft-evidence input")];
    inputs[0].value = "0.25"; inputs[1].value = "0.75";
    inputs[1].dispatchEvent(new Event("change"));
    const st = document.getElementById("status");
    document.body.dataset.after = JSON.stringify({hash: location.hash,
      soft: JSON.parse(st.dataset.soft),
      lung: JSON.parse(document.querySelector('[data-variable="lung"]').dataset.marginal)});
    // a state replaces the likelihood
    document.querySelector('[data-variable="xray"] .st[data-state="yes"]').click();
    document.body.dataset.state = JSON.stringify({hash: location.hash,
      soft: JSON.parse(st.dataset.soft)});
    </script></body>"""
    path = tmp_path / "sliders.html"
    path.write_text(to_html(model).replace("</body>", sliders, 1), encoding="utf-8")
    dom = dump_dom(str(path))
    after = json.loads(html.unescape(re.search(r'data-after="([^"]*)"', dom).group(1)))
    assert after["hash"] == "#soft=xray:0.25|0.75" and after["soft"] == {"xray": [0.25, 0.75]}
    np.testing.assert_allclose(
        after["lung"], model.marginals({"xray": [0.25, 0.75]})["lung"], atol=TOL
    )
    state = json.loads(html.unescape(re.search(r'data-state="([^"]*)"', dom).group(1)))
    assert state == {"hash": "#evidence=xray:yes", "soft": {}}
    # bad likelihoods in a link are ignored, each named, as tl refuses them
    bad = ["xray:0.5|-0.1", "xray:0.5|nan", "xray:1|2|3", "xray:0|0", "nope:1|1"]
    results = run_panel(
        model,
        tmp_path,
        [("#soft=" + b, "lung") for b in bad] + [("#evidence=xray:yes&soft=xray:1|2", "lung")],
    )
    for b, r in zip(bad, results):
        assert r["soft"] == {} and r["message"] == "ignored: " + b
        with pytest.raises(tl.TreelearnError):
            name, weights = b.split(":")
            model.query("lung", evidence={name: [float(w) for w in weights.split("|")]})
    assert results[-1]["evidence"] == {"xray": "yes"} and results[-1]["soft"] == {}
