"""What each saved kind answers on the command line, beyond one discrete network.

The ``treelearn`` commands (:mod:`treelearn.cli._main`) work on a
:class:`~treelearn.TreeModel` and on a classifier with one network (``model_``).
Every other saved kind is answered here, exactly where the model defines the
answer, or refused with one :class:`KindError` line saying why and what to use:

========================  ==========================================================
kind                      beyond show, score and plain sample
========================  ==========================================================
multinet (one tree per    query / sample --given: the class posterior ``P(c | e)``
class)                    times each class's tree (a mixture over classes)
TreeMixture, BaggedTrees  query, --map refused, predict --target, sample --given: the
                          posterior over components times each tree's
GaussianTreeModel         query (the conditional Gaussian: mean and sd), predict
                          --target (conditional mean given the other columns),
                          sample --given (exact), --plot / --dot / --mermaid, --html
                          (posterior densities, numbers as evidence)
CLGTreeModel              query (a discrete target's distribution; a continuous one's
                          Gaussian mixture: mean, sd), predict --target, score, sample,
                          --plot, --html (discrete posteriors and Gaussian-mixture
                          densities, numbers as evidence)
CutsetNetwork             query, predict --target, --html (one forest per leaf)
CopulaTreeModel           score, sample, query (each variable's exact conditional in
                          its own units: median, mean, 90 % interval)
KernelForestModel         score, sample, --plot
HiddenTree                predict --target, --plot, --html
TreePosterior             score (the Bayesian average), --plot (edge posteriors),
                          --html (its joint table, up to 4,096 complete rows)
Gaussian, copula, kernel  score and predict (the class); the rest refused, naming
TAN, text, AODE,          why; --html: AODE's shows one super-parent's network,
BayesianTAN classifiers,  A2DE's and the weighted naive Bayes's their own score,
weighted naive Bayes      BayesianTAN's its joint table (up to 4,096 feature rows),
(WANBIA, AWNB, MANB),     the Gaussian classifiers', MixedNaiveBayes's and
MixedNaiveBayes, MixedTAN MixedTAN's sliders (the class posterior: predict_proba's)
========================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._base.errors import TreelearnError

__all__ = [
    "KindError",
    "describe",
    "is_density",
    "is_gaussian_tree",
    "is_multinet_like",
    "kind_name",
    "multinet_components",
    "predict_target",
    "query_text",
    "refuse",
    "sample_given",
    "score_of",
]


class KindError(TreelearnError):
    """A command this kind of model does not answer (one line: why, and what to use)."""


def kind_name(obj: Any) -> str:
    return type(obj).__name__


def refuse(obj: Any, what: str, why: str, instead: str = "") -> KindError:
    """The one-line refusal: ``<what> does not apply to a <Kind>: <why>[; <instead>]``."""
    return KindError(
        f"{what} does not apply to a {kind_name(obj)}: {why}" + (f"; {instead}" if instead else "")
    )


def is_gaussian_tree(obj: Any) -> bool:
    return kind_name(obj) == "GaussianTreeModel"


def is_clg_tree(obj: Any) -> bool:
    return kind_name(obj) == "CLGTreeModel"


def is_density(obj: Any) -> bool:
    """A density estimator without a class (mixtures, cutset networks, hidden trees)."""
    return hasattr(obj, "score_samples") and not hasattr(obj, "classes_")


def is_multinet_like(obj: Any) -> bool:
    """One discrete tree per class (``models_``: a ChowLiuMultinet)."""
    models = getattr(obj, "models_", None)
    return (
        isinstance(models, dict) and hasattr(obj, "classes_") and set(models) == set(obj.classes_)
    )  # AODE's are keyed by super-parent


def multinet_components(obj: Any) -> tuple[list, np.ndarray, list]:
    """A multinet as a mixture over its classes: the trees, ``P(c)`` and the labels."""
    labels = list(obj.models_)
    log_prior = dict(zip(list(obj.classes_), np.asarray(obj.class_log_prior_, dtype=float)))
    prior = np.exp(np.array([log_prior[c] for c in labels]))
    return [obj.models_[c] for c in labels], prior, labels


def describe(obj: Any) -> str:
    """A text summary of a kind that has no text tree of its own."""
    name = kind_name(obj)
    if is_gaussian_tree(obj):
        lines = [repr(obj)]
        for v in obj.variables:
            a = obj.graph.nodes[v]
            parents = obj.parents(v)
            mean = f"{a['intercept']:.4g}" + (
                f" + {a['coefficient']:.4g} * {parents[0]}" if parents else ""
            )
            lines.append(f"{v} ~ N({mean}, sd {np.sqrt(a['variance']):.4g})")
        return "\n".join(lines)
    if is_clg_tree(obj):
        lines = [repr(obj)]
        for v in obj.variables:
            parents = obj.parents(v)
            kind = "Gaussian" if v in obj.continuous else "discrete"
            lines.append(f"{v} ({kind})" + (f" | {parents[0]}" if parents else "  [root]"))
        return "\n".join(lines)
    if name in ("MixtureModel", "HiddenTreeModel", "CutsetModel"):  # their own structure
        return obj.to_text()
    if name == "TreePosterior":
        frame = obj.to_frame()
        head = frame.head(10).to_string(index=False)
        return (
            f"TreePosterior: Bayesian average over all spanning trees of "
            f"{len(obj.variables)} variables; the most probable edges:\n{head}"
        )
    if hasattr(obj, "classes_"):
        classes = [c.item() if hasattr(c, "item") else c for c in obj.classes_]
        features = list(getattr(obj, "feature_names_in_", []))
        return (
            f"{name} classifier for {getattr(obj, 'class_name_', None)!r}, classes "
            f"{classes}, {len(features)} features: {features[:20]}"
        )
    features = list(getattr(obj, "feature_names_in_", []))
    n_parameters = getattr(obj, "n_parameters", None)
    return f"{name}: a density over {len(features)} columns {features[:20]}" + (
        f", {n_parameters} parameters" if n_parameters is not None else ""
    )


def score_of(obj: Any, df: pd.DataFrame) -> tuple[float, int]:
    """``(total log-likelihood, number of parameters)`` of a kind without a score report."""
    if is_gaussian_tree(obj):  # other columns are ignored, as a discrete tree ignores them
        return float(
            obj.log_likelihood(df[[c for c in df.columns if c in obj.variables]])
        ), obj.n_parameters
    if kind_name(obj) == "TreePosterior":
        # the Bayesian average has no parameter count of its own: the MAP tree's is shown
        return float(obj.log_likelihood(df)), obj.map_tree().n_parameters
    if is_density(obj):
        variables = getattr(obj, "variables", None)
        if variables is not None:  # other columns are ignored here too (a class column, ids)
            df = df[[c for c in df.columns if c in variables]]
        return float(np.sum(obj.score_samples(df))), obj.n_parameters
    raise refuse(obj, "score", "it has no likelihood of data")


def predict_target(
    obj: Any, df: pd.DataFrame, target: Hashable | None
) -> tuple[Hashable, list, np.ndarray | None, pd.DataFrame | None]:
    """``(target, labels, probabilities, values)`` for kinds without a class: one of
    ``probabilities`` (n x labels) or ``values`` (a frame of predicted numbers)."""
    name = kind_name(obj)
    if target is None:
        raise refuse(
            obj,
            "predict without --target",
            "it has no class",
            "give --target VAR, the variable to predict",
        )
    if is_gaussian_tree(obj):
        if target not in obj.variables:
            raise KindError(f"--target {target!r} is not a variable; they are {obj.variables[:20]}")
        return target, [], None, gaussian_conditional_means(obj, df, target)
    if is_clg_tree(obj):
        if target not in obj.variables:
            raise KindError(f"--target {target!r} is not a variable; they are {obj.variables[:20]}")
        if target in obj.continuous:  # the posterior mean given the row's other cells
            return target, [], None, obj.predict(df, target).to_frame()
        proba = obj.posterior(df, target)
        return target, list(proba.columns), proba.to_numpy(), None
    if name in ("TreeMixture", "BaggedTrees", "MixtureModel"):
        proba = obj.predict_proba(df, target=target)
        return target, list(proba.columns), proba.to_numpy(), None
    if hasattr(obj, "predict_proba") and name in (
        "CutsetNetwork",
        "HiddenTree",
        "HiddenMarkovModel",
        "CutsetModel",
        "HiddenTreeModel",
    ):
        proba = obj.predict_proba(df, target)
        return target, list(proba.columns), np.asarray(proba), None
    raise refuse(obj, "predict --target", "it predicts no variable")


def gaussian_conditional_means(model: Any, df: pd.DataFrame, target: Hashable) -> pd.DataFrame:
    """``E[target | the other variables]`` for every row (all rows at once):
    ``mu_t + S_to S_oo^-1 (x_o - mu_o)``; rows need every other variable."""
    others = [v for v in model.variables if v != target]
    absent = [v for v in others if v not in df.columns]
    if absent:
        raise KindError(
            f"predicting {target!r} needs the other columns; the data lacks {absent[:10]}"
        )
    X = df[others].to_numpy(dtype=float)
    if np.isnan(X).any():
        raise KindError(
            f"predicting {target!r} with a Gaussian tree needs every other "
            f"column observed; some rows have missing values: drop or fill them"
        )
    mu, S = model.joint()
    K = np.linalg.solve(S.loc[others, others].to_numpy(), S.loc[others, target].to_numpy())
    mean = mu[target] + (X - mu[others].to_numpy()) @ K
    return pd.DataFrame({target: mean})


def query_text(obj: Any, variables: list, evidence: Mapping[Hashable, Any], map_query: bool) -> str:
    """The printed answer of ``query`` for the kinds answered here."""
    name = kind_name(obj)
    given = ", ".join(f"{k}={v}" for k, v in evidence.items())
    head = f"P({', '.join(map(str, variables))}{' | ' + given if given else ''})"
    if is_gaussian_tree(obj):
        if map_query:
            raise refuse(
                obj,
                "query --map",
                "a Gaussian's most probable values are its means",
                "drop --map to print them",
            )
        values = {}
        for k, v in evidence.items():
            try:
                values[k] = float(v)
            except ValueError:
                raise KindError(f"--given {k}={v}: a Gaussian variable takes a number") from None
        q = obj.query(variables, values)
        sd = np.sqrt(np.clip(np.diag(q.covariance.to_numpy()), 0, None))
        table = pd.DataFrame({"variable": variables, "mean": q.mean.to_numpy(), "sd": sd})
        return (
            "Gaussian "
            + head
            + "\n"
            + table.to_string(
                index=False, formatters={"mean": "{:.6f}".format, "sd": "{:.6f}".format}
            )
        )
    if is_clg_tree(obj):
        return _clg_query(obj, variables, evidence, map_query, head)
    if name == "CopulaTreeModel":
        return _copula_query(obj, variables, evidence, map_query, head)
    if map_query:
        raise refuse(
            obj,
            "query --map",
            "the most probable row of a mixture is not each "
            "tree's most probable row, and is not computed exactly here",
            "query the variables' posteriors instead",
        )
    if is_multinet_like(obj):
        trees, prior, labels = multinet_components(obj)
        result = _multinet_query(obj, trees, prior, labels, variables, evidence)
    elif name in (
        "TreeMixture",
        "BaggedTrees",
        "CutsetNetwork",
        "MixtureModel",
        "CutsetModel",
        "HiddenTreeModel",
    ):
        result = obj.query(variables, evidence)
    else:
        raise refuse(
            obj, "query", "it has no one network to condition on", "use predict for the class"
        )
    table = pd.Series(result).rename("probability").reset_index()
    return (
        head + "\n" + table.to_string(index=False, formatters={"probability": lambda x: f"{x:.6f}"})
    )


def _numbers(evidence: Mapping[Hashable, Any]) -> dict:
    """``--given`` values of continuous variables as floats, or one error naming the value."""
    values = {}
    for k, v in evidence.items():
        try:
            values[k] = float(v)
        except ValueError:
            raise KindError(f"--given {k}={v}: a continuous variable takes a number") from None
    return values


def _copula_query(
    obj: Any, variables: list, evidence: Mapping[Hashable, Any], map_query: bool, head: str
) -> str:
    """A copula tree's exact conditional of each variable, in the original units: its
    median, mean and central 90 % interval (the conditional is not Gaussian there)."""
    if map_query:
        raise refuse(
            obj,
            "query --map",
            "the most probable values of a copula tree are not computed here",
            "drop --map to print the conditional distributions",
        )
    values = _numbers(evidence)
    rows = []
    for v in variables:
        q = obj.query(v, values)
        low, high = np.asarray(q.quantile([0.05, 0.95]), dtype=float)
        rows.append({"variable": v, "median": q.median, "mean": q.mean, "q05": low, "q95": high})
    fmt = "{:.6f}".format
    return (
        "copula "
        + head
        + "\n"
        + pd.DataFrame(rows).to_string(
            index=False, formatters=dict.fromkeys(("median", "mean", "q05", "q95"), fmt)
        )
    )


def _clg_query(
    obj: Any, variables: list, evidence: Mapping[Hashable, Any], map_query: bool, head: str
) -> str:
    if map_query:
        raise refuse(
            obj,
            "query --map",
            "the most probable values of a mixed model are not computed here",
            "drop --map to print the posterior",
        )
    if len(variables) != 1:
        raise refuse(
            obj,
            "a query of several variables",
            "it answers one variable at a time",
            "query each of them",
        )
    values = {}
    for k, v in evidence.items():
        if k in obj.continuous:
            try:
                values[k] = float(v)
            except ValueError:
                raise KindError(f"--given {k}={v}: {k!r} is Gaussian: it takes a number") from None
        else:
            states = obj.states.get(k, []) if isinstance(obj.states, dict) else []
            spelled = [s for s in states if str(s) == str(v)]
            values[k] = spelled[0] if spelled else v
    result = obj.query(variables[0], values)
    if variables[0] in obj.continuous:
        table = pd.DataFrame(
            {
                "variable": variables,
                "mean": [result.mean],
                "sd": [np.sqrt(max(result.variance, 0.0))],
            }
        )
        return (
            "Gaussian mixture "
            + head
            + "\n"
            + table.to_string(
                index=False, formatters={"mean": "{:.6f}".format, "sd": "{:.6f}".format}
            )
        )
    table = result.rename("probability").reset_index()
    return (
        head + "\n" + table.to_string(index=False, formatters={"probability": lambda x: f"{x:.6f}"})
    )


def _multinet_query(
    obj: Any,
    trees: list,
    prior: np.ndarray,
    labels: list,
    variables: list,
    evidence: Mapping[Hashable, Any],
) -> pd.Series:
    from ..models._mixture import MixtureModel

    cls = obj.class_name_
    given_class = evidence.get(cls) if cls in evidence else None
    features = {k: v for k, v in evidence.items() if k != cls}
    if given_class is not None:  # the class given: that class's tree alone
        spelled = [c for c in labels if str(c) == str(given_class)]
        if not spelled:
            raise KindError(f"--given {cls}={given_class}: not a class; the classes are {labels}")
        trees, prior = [obj.models_[spelled[0]]], np.ones(1)
        labels = spelled
    mixture = MixtureModel(trees, prior)
    post = mixture.component_posterior(features)
    if variables == [cls]:
        return pd.Series(post, index=pd.Index(labels, name=cls), name="probability")
    if cls in variables:
        raise KindError(f"query the class {cls!r} alone or the features alone")
    return mixture.query(variables, features)


def sample_given(
    obj: Any, n: int, evidence: Mapping[Hashable, Any], seed: int | None, numbers: bool
) -> pd.DataFrame:
    """Rows drawn exactly given evidence, for the kinds answered here."""
    rng = np.random.default_rng(seed)
    name = kind_name(obj)
    if name in ("TreeMixture", "BaggedTrees", "MixtureModel"):
        return obj.sample(n, random_state=rng, evidence=evidence, numbers=numbers)
    if is_multinet_like(obj):
        from ..models._mixture import MixtureModel

        trees, prior, labels = multinet_components(obj)
        cls = obj.class_name_
        if cls in evidence:
            raise KindError(
                f"sample --given {cls}=...: give features only (the class of each row is drawn)"
            )
        X, which = MixtureModel(trees, prior).sample(
            n, rng, evidence=evidence, numbers=numbers, return_components=True
        )
        return X.assign(**{str(cls): [labels[k] for k in which]})
    if is_gaussian_tree(obj):
        values = {k: float(v) for k, v in evidence.items()}
        free = [v for v in obj.variables if v not in values]
        q = obj.query(free, values)
        cov = q.covariance.to_numpy()
        # the conditional Gaussian by its eigen-decomposition (clipped: round-off negatives)
        w, U = np.linalg.eigh(cov)
        draws = (
            q.mean.to_numpy()
            + (rng.standard_normal((n, len(free))) * np.sqrt(np.clip(w, 0, None))) @ U.T
        )
        out = pd.DataFrame(draws, columns=free)
        for k, v in values.items():
            out[k] = v
        return out[obj.variables]
    raise refuse(obj, "sample --given", "it has no conditional sampler", "sample without --given")
