"""Categorical naive Bayes: the star ``class -> every feature`` with smoothed CPTs.

The class posterior is the normalised joint, in log space; a missing feature value
(NaN) drops out of the product (its factor sums to one). Term counts are
:class:`~treelearn.classifiers._text.TextNaiveBayes`, numeric columns next to
categorical ones :class:`~treelearn.classifiers._mixed.MixedNaiveBayes`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import ClassVar

import networkx as nx

from ..stats._counts import ClassCounts
from ..structure._trees import star
from ._base import CLASS_PRIOR, CPT_PRIOR, UNSEEN, Unseen
from ._class_arcs import CLASS_ARCS
from ._network import SingleNetworkClassifier
from ._partial import PartialFitNetwork

__all__ = ["NaiveBayes"]


class NaiveBayes(PartialFitNetwork, SingleNetworkClassifier):
    """Categorical naive Bayes: the star ``class -> every feature`` with Lidstone CPTs.

    Parameters
    ----------
    alpha : float, default=1.0
        Pseudocount added to every feature-state count in each class
        (1 = Laplace, 0 = maximum likelihood): ``p(x_j = a | c) = (N_jc(a) + alpha)
        / (N_c + k_j alpha)``, over the rows where ``x_j`` is observed.
    fit_prior : bool, default=True
        Learn the class prior as the class frequencies (unsmoothed, as
        scikit-learn does); ``False`` uses a uniform prior.
    class_prior : array-like of float, default=None
        Prior probabilities of the classes (in ``classes_`` order);
        overrides ``fit_prior``.
    unseen : {"error", "ignore"}, default="error"
        At prediction, a category not seen in training is an error
        (``"error"``, naming the column and value) or treated as missing (``"ignore"``).
    prior : {"lidstone", "bdeu", "m-estimate"}, default="lidstone"
        The CPT estimator: ``"lidstone"`` (default, uses ``alpha``), ``"bdeu"``
        (``(N(a, u) + s / (q k_j)) / (N(u) + s / q)`` with ``s = equivalent_sample_size``
        and ``q`` the parent configurations), or ``"m-estimate"`` (Mitchell's, with a
        uniform prior: ``(N(a, u) + m / k_j) / (N(u) + m)``).
    equivalent_sample_size : float, default=1.0
        BDeu's equivalent sample size (> 0), with ``prior="bdeu"``.
    m : float, default=1.0
        The m-estimate's equivalent sample size (> 0), with ``prior="m-estimate"``.
    numbers : {"mdl", "states"}, default="mdl"
        ``"mdl"`` (default) or ``"states"``. With ``"mdl"`` every column of numbers
        (decided by its dtype alone: integers, floats, dates; booleans, text and pandas
        Categoricals are states) is cut in ``fit`` into supervised MDL bins (Fayyad &
        Irani 1993, as Weka's ``NaiveBayes -D``), kept in ``binner_`` and saved with the
        model; predictions, scores and explanations take raw numbers, and no fold of a
        cross-validation meets an unseen number. A column no cut pays for is one bin (it
        then says nothing about the class, as in Weka). ``"states"`` (the default
        before this release) makes each distinct value of a column a state. A CSV/Parquet
        path is read in chunks and cut into the bins the same table read whole would get
        (each numeric column's value x class counts summed over the chunks); a Dask
        DataFrame with numeric features is refused. Every classifier that counts states has this option and
        ``categorical``.
    categorical : sequence of hashable, default=None
        The columns of numbers kept as states (zip codes, codes of
        categories); a pandas Categorical column is always states.
    class_arcs : {"average", "all"}, default="average"
        ``"average"`` (default): each feature's CPT is the exact Bayesian average over
        the arc ``C -> X_j`` being in or out (Dash and Cooper's model-averaged naive Bayes,
        :class:`~treelearn.MANB`; see Notes), so a feature the data show independent of
        the class stops moving the posterior; ``"all"``: every feature depends on the
        class, the plain smoothed CPTs (the default before this release). ``alpha=0`` has no
        marginal likelihood to average by: it needs ``class_arcs="all"``.
    arc_prior : float, default=0.5
        The prior probability of each arc ``C -> X_j`` (in ``(0, 1)``; 0.5: every subset of
        arcs equally likely), with ``class_arcs="average"``.

    Attributes
    ----------
    classes_ : sorted class labels.
    binner_ : the fitted :class:`~treelearn.Discretizer` of the numeric features
        (``numbers="mdl"``), or ``None``.
    model_ : the fitted :class:`~treelearn.TreeModel` over the features and
        the class (``class_name_``); ``query``, ``to_pgmpy`` and drawing work on it.
    class_name_ : the class node's name: ``y.name`` if ``y`` is a named Series,
        else ``"class"``.
    class_count_, class_log_prior_ : rows per class and the log class prior.
    n_features_in_, feature_names_in_ : the features (arrays get the names ``x0, x1, ...``).
    arc_posterior_ : ``(n_features,)``, each feature's posterior probability ``p_j`` of
        its arc from the class (1.0 for every feature under ``class_arcs="all"``; MANB's
        name).

    Notes
    -----
    **Class-arc averaging** (``class_arcs="average"``): over the ``2^n`` networks in which
    each arc ``C -> X_j`` is in or out (prior ``arc_prior`` each, independently; a
    feature's other parents ``S_j``, in TAN and KDB, kept), the Dirichlet marginal
    likelihood decomposes per family, and the averaged joint is

    ``P(c, x | D) = P(c) prod_j [p_j P(x_j | c, s_j, D) + (1 - p_j) P(x_j | s_j, D)]``,

    ``p_j`` Bayes's rule between ``log P(D_j | C, S_j)`` and ``log P(D_j | S_j)``, each
    ``sum_u [lgamma(k a) - lgamma(k a + N_u) + sum_x (lgamma(a + N_ux) - lgamma(a))]``
    with the CPT estimator's own pseudocount ``a`` (``alpha``; BDeu ``s / (q k)`` with the
    family's own ``q``; ``m / k``). The mixture is a CPT of ``X_j`` given ``(C, S_j)``:
    ``model_`` is an ordinary network of the same graph (queries, sampling, files,
    pictures as before). It is the exact model average for the fixed structure;
    ``partial_fit`` and chunked reads average
    the summed counts, as a fit on every row does.

    Features are encoded by the rules every learner shares: a
    pandas Categorical keeps its declared categories as states, other columns
    have their sorted distinct values. Missing feature values are allowed when
    fitting (each CPT counts the rows where its family is observed) and when
    predicting (summed out). At prediction a DataFrame is matched to the fitted
    features by column name, a 2-D array by position.

    See Also
    --------
    TAN : a tree over the features as well.
    TextNaiveBayes : term counts.
    MixedNaiveBayes : categorical and Gaussian features.

    References
    ----------
    .. [1] Domingos, P. and Pazzani, M. (1997). On the optimality of the simple Bayesian
       classifier under zero-one loss. Machine Learning 29(2-3), 103-130.
    .. [2] Dash, D. and Cooper, G. F. (2002). Exact model averaging with naive Bayesian
       classifiers. In Proceedings of the 19th International Conference on Machine
       Learning (ICML), 91-98.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/playtennis.csv").drop(columns="Day")
    >>> X, y = df.drop(columns="PlayTennis"), df["PlayTennis"]
    >>> clf = tl.NaiveBayes(alpha=0, class_arcs="all").fit(X, y)   # Mitchell's counts
    >>> clf.predict(pd.DataFrame([{"Outlook": "Sunny", "Temperature": "Cool",
    ...                            "Humidity": "High", "Wind": "Strong"}])).tolist()
    ['No']
    >>> sorted(clf.model_.graph.successors("PlayTennis"))
    ['Humidity', 'Outlook', 'Temperature', 'Wind']
    >>> avg = tl.NaiveBayes().fit(X, y)   # 14 rows: each arc from the class uncertain
    >>> dict(zip(avg.feature_names_in_, avg.arc_posterior_.round(2).tolist()))
    {'Outlook': 0.68, 'Temperature': 0.37, 'Humidity': 0.67, 'Wind': 0.47}
    """

    _method = "naive-bayes"
    cli_method: ClassVar[str] = "naive-bayes"
    #: its network's answers, and adding rows (``partial_fit``)
    capabilities: ClassVar[frozenset[str]] = SingleNetworkClassifier.capabilities | {"partial_fit"}
    _parameter_constraints: ClassVar[dict] = {**CPT_PRIOR, **CLASS_PRIOR, **UNSEEN, **CLASS_ARCS}
    #: the star's families are the class and one feature each: summed chunk by chunk as
    #: they are, with no class-conditional pair counts (a K x K product per class that a
    #: fit on 20,000 x 36 codes spent 6 ms of its 18 ms on, for nothing the star reads)
    _needs_pairs: ClassVar[bool] = False

    def __init__(
        self,
        alpha: float = 1.0,
        fit_prior: bool = True,
        class_prior: Sequence[float] | None = None,
        unseen: Unseen = "error",
        prior: str = "lidstone",
        equivalent_sample_size: float = 1.0,
        m: float = 1.0,
        numbers: str = "mdl",
        categorical: Sequence[Hashable] | None = None,
        class_arcs: str = "average",
        arc_prior: float = 0.5,
    ) -> None:
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.unseen = unseen
        self.prior = prior
        self.equivalent_sample_size = equivalent_sample_size
        self.m = m
        self.numbers = numbers
        self.categorical = categorical
        self.class_arcs = class_arcs
        self.arc_prior = arc_prior

    def _structure(self, stats: ClassCounts, params: dict) -> nx.DiGraph:
        return star(stats.columns[-1], stats.columns[:-1])
