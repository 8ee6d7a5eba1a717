"""Every saved kind, fitted small, with the answers that say whether two are the same
(tests/test_reliability_files.py mutates every field of each one's file)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

import treelearn as tl


@dataclass
class Kind:
    name: str
    obj: Any
    answers: Callable[[Any], list]  # numbers that are equal for equal objects


def _rng_frames():
    rng = np.random.default_rng(0)
    cat = pd.DataFrame({"a": rng.integers(0, 2, 120), "b": rng.choice(["x", "y", "z"], 120)})
    cat["c"] = (cat["a"] ^ (rng.random(120) < 0.2)).astype(int)
    cat.loc[::7, "b"] = "x"
    y = np.where(cat["c"] == 1, "yes", "no")
    num = pd.DataFrame(rng.normal(size=(120, 3)), columns=["u", "v", "w"])
    num["v"] += 2 * num["u"]
    ny = np.where(num["w"] + 0.3 * rng.normal(size=120) > 0, "p", "q")
    counts = pd.DataFrame(rng.poisson(1.0, (120, 4)), columns=["t0", "t1", "t2", "t3"])
    counts.loc[ny == "p", "t0"] += 2
    mixed = cat[["a", "b"]].assign(u=num["u"])
    times = pd.DataFrame({"u": num["u"], "t": pd.date_range("2021-01-01", periods=120, freq="D")})
    return cat, y, num, ny, counts, mixed, times


def _classifier(X):
    def answers(clf):
        # predict is the argmax of the same joint log-likelihood: predict_proba says it all
        return [clf.predict_proba(X), np.asarray(clf.classes_).astype(str)]

    return answers


def saved_kinds() -> list[Kind]:
    cat, y, num, ny, counts, mixed, times = _rng_frames()
    features = cat[["a", "b"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = tl.chow_liu(cat)
        kinds = [
            Kind("TreeModel", tree, lambda m: [m.log_likelihood(cat, per_row=True)]),
            Kind(
                "GaussianTreeModel",
                tl.gaussian_chow_liu(num),
                lambda m: [m.log_likelihood(num, per_row=True)],
            ),
            Kind(
                "TreePosterior",
                tl.tree_posterior(cat),
                lambda p: [p.edge_posterior_matrix, p.log_likelihood(cat, per_row=True)],
            ),
            Kind(
                "CLGTreeModel",
                tl.clg_tree(mixed, numeric=["u"]),
                lambda m: [m.log_likelihood(mixed, per_row=True)],
            ),
            Kind(
                "CopulaTreeModel",
                tl.copula_chow_liu(num),
                lambda m: [m.log_likelihood(num, per_row=True)],
            ),
        ]
        for make in (
            tl.NaiveBayes,
            tl.TAN,
            lambda: tl.KDB(k=1),
            tl.AODE,
            tl.BayesianTAN,
            tl.ChowLiuMultinet,
            lambda: tl.SKDB(max_k=2),
            lambda: tl.AnDE(n=2),
            tl.WeightedNaiveBayes,
            lambda: tl.FSSJ(cv=3, random_state=0),
            lambda: tl.BSEJ(cv=3, random_state=0),
            lambda: tl.TANHillClimb(cv=3, random_state=0),
            lambda: tl.TANSuperParent(cv=3, random_state=0),
            lambda: tl.AWNB(n_trees=3, random_state=0),
            tl.MANB,
            tl.ETAN,
            lambda: tl.AutoClassifier(candidates=["NaiveBayes", "TAN"], cv=3),
        ):
            clf = make().fit(features, y)
            kinds.append(Kind(type(clf).__name__, clf, _classifier(features)))
        kinds.append(
            Kind("MixedNaiveBayes", tl.MixedNaiveBayes().fit(mixed, y), _classifier(mixed))
        )
        kinds.append(Kind("MixedTAN", tl.MixedTAN().fit(mixed, y), _classifier(mixed)))
        for event_model in ("multinomial", "bernoulli"):
            kinds.append(
                Kind(
                    f"TextNaiveBayes-{event_model}",
                    tl.TextNaiveBayes(event_model=event_model).fit(counts, ny),
                    _classifier(counts),
                )
            )
        for covariance in ("full", "shared", "diagonal", "isotropic"):
            kinds.append(
                Kind(
                    f"GaussianClassifier-{covariance}",
                    tl.GaussianClassifier(covariance=covariance).fit(num, ny),
                    _classifier(num),
                )
            )
        kinds.append(Kind("GaussianTAN", tl.GaussianTAN().fit(num, ny), _classifier(num)))
        for marginal in ("empirical", "gaussian"):
            kinds.append(
                Kind(
                    f"CopulaTAN-{marginal}",
                    tl.CopulaTAN(marginal=marginal).fit(num, ny),
                    _classifier(num),
                )
            )
        kinds.append(Kind("KernelTAN", tl.KernelTAN(random_state=0).fit(num, ny), _classifier(num)))
        kinds.append(
            Kind(
                "Discretizer",
                tl.Discretizer(bins=3).fit(times),
                lambda d: [d.transform(times).astype(str).to_numpy()],
            )
        )
        kinds.append(
            Kind(
                "TreeMixture",
                tl.TreeMixture(n_components=2, random_state=0).fit(cat),
                lambda m: [m.score_samples(cat), m.predict_proba(cat)],
            )
        )
        kinds.append(
            Kind(
                "BaggedTrees",
                tl.BaggedTrees(n_estimators=2, random_state=0).fit(cat),
                lambda m: [m.score_samples(cat)],
            )
        )
        kinds.append(
            Kind(
                "HiddenTree",
                tl.HiddenTree(n_states=2, max_iter=3, random_state=0).fit(cat),
                lambda m: [m.score_samples(cat)],
            )
        )
        seqs = pd.DataFrame({f"t{i}": cat["c"].shift(i, fill_value=0) for i in range(3)})
        for tied in (True, False):
            kinds.append(
                Kind(
                    f"HiddenMarkovModel-{'tied' if tied else 'untied'}",
                    tl.HiddenMarkovModel(n_states=2, tied=tied, max_iter=3, random_state=0).fit(
                        seqs
                    ),
                    lambda m, seqs=seqs: [m.score_samples(seqs)],
                )
            )
        kinds.append(
            Kind(
                "CutsetNetwork",
                tl.CutsetNetwork(max_depth=1, min_rows=20).fit(cat),
                lambda m: [m.score_samples(cat)],
            )
        )
        kinds.append(
            Kind(
                "AutoDensity",
                tl.AutoDensity(candidates=["ChowLiuTree", "CutsetNetwork"], random_state=0).fit(
                    cat
                ),
                lambda m: [m.score_samples(cat)],
            )
        )
        kinds.append(
            Kind(
                "CutsetModel",
                tl.CutsetNetwork(max_depth=1, min_rows=20).fit(cat).networks_[0],
                lambda m: [m.score_samples(cat)],
            )
        )
        mixture = tl.TreeMixture(n_components=2, random_state=0).fit(cat).model_
        kinds.append(
            Kind(
                "MixtureModel",
                mixture,
                lambda m: [m.score_samples(cat), m.component_proba(cat)],
            )
        )
        kinds.append(
            Kind(
                "MixtureModel-cutset",
                tl.CutsetNetwork(max_depth=1, min_rows=20, n_estimators=2, random_state=0)
                .fit(cat)
                .model_,
                lambda m: [m.score_samples(cat)],
            )
        )
        kinds.append(
            Kind(
                "HiddenTreeModel",
                tl.HiddenTree(n_states=2, max_iter=3, random_state=0).fit(cat).model_,
                lambda m: [m.score_samples(cat)],
            )
        )
        kinds.append(
            Kind(
                "HiddenTreeModel-tied",
                tl.HiddenMarkovModel(n_states=2, max_iter=3, random_state=0).fit(seqs).model_,
                lambda m, seqs=seqs: [m.score_samples(seqs), np.array([m.n_parameters])],
            )
        )
        kinds.append(
            Kind(
                "KernelForestModel",
                tl.kernel_forest(num, random_state=0),
                lambda m: [m.score_samples(num)],
            )
        )
        # the estimators of one model: their options, features and model
        for est, X in (
            (tl.ChowLiuTree(alpha=0.5, forest="bic"), cat),
            (tl.GaussianTree(root="v"), num),
            (tl.CLGTree(numeric=["u"]), mixed),
            (tl.CopulaTree(), num),
            (tl.KernelForest(grid=16, random_state=0), num),
            (tl.BayesianTrees(equivalent_sample_size=2.0), cat),
        ):
            kinds.append(
                Kind(
                    type(est).__name__,
                    est.fit(X),
                    lambda m, X=X: [m.score_samples(X), m.feature_names_in_.astype(str)],
                )
            )
    return kinds


def saved_classes() -> set[str]:
    """The name of every concrete estimator :func:`treelearn.save` writes (the registry,
    every public module loaded), so a kind added later has to get a sample here."""
    import inspect

    from treelearn._base.persistence import ESTIMATORS

    for name in dir(tl):  # the facade loads each module on first use: they register
        getattr(tl, name)
    return {
        name
        for name, cls in ESTIMATORS.items()
        if not inspect.isabstract(cls) and getattr(tl, name, None) is cls
    }
