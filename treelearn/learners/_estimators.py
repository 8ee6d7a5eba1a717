"""The estimators of the learners that learn one model: ``fit`` gives ``model_``, and every
answer is the model's.

=================  ==========================  ================================
estimator          ``model_``                  the same model as a function
=================  ==========================  ================================
``ChowLiuTree``    ``TreeModel``               ``tl.chow_liu``
``GaussianTree``   ``GaussianTreeModel``       ``tl.gaussian_chow_liu``
``CLGTree``        ``CLGTreeModel``            ``tl.clg_tree``
``CopulaTree``     ``CopulaTreeModel``         ``tl.copula_chow_liu``
``KernelForest``   ``KernelForestModel``       ``tl.kernel_forest``
``BayesianTrees``  ``TreePosterior``           ``tl.tree_posterior``
=================  ==========================  ================================

Each estimator names its learning function (``learner``) and declares its options'
constraints (``_parameter_constraints``, the very dicts the function checks them with);
``fit(X, y=None, sample_weight=None)`` is ``learner(X, sample_weight=sample_weight,
**get_params())``, so ``tl.chow_liu(data, **options)`` is ``ChowLiuTree(**options).fit(data,
sample_weight=...).model_`` with one implementation, and every input kind the function
takes the estimator takes; an array too (the table of its columns ``x0, x1, ...``), as
every scikit-learn estimator does. The functions live in modules that import no
scikit-learn (``tl.chow_liu`` and the command line start in a fraction of the second
scikit-learn takes to import); this one imports it.

:class:`ModelEstimator` writes the estimator side once, as scikit-learn's density
estimators name it: the fitted attributes (``model_``, ``n_features_in_``,
``feature_names_in_``), the rows checked against the features when scoring
(:func:`~treelearn.sources._kinds.match_features`: a DataFrame by name, an array by
position, scikit-learn's wording), and ``score_samples``, ``score`` (the mean
log-likelihood, what ``GridSearchCV`` maximises), ``bic``, ``aic``, ``sample`` and
``n_parameters``, each the model's own (one implementation, in
:class:`~treelearn.Model`). Saving writes the model beside the codec's header
(:mod:`treelearn._base.persistence`); ``tl.load`` gives the fitted estimator back.

>>> import pandas as pd, treelearn as tl
>>> df = pd.read_csv("datasets/asia.csv")
>>> tl.ChowLiuTree(alpha=0.5).fit(df).model_ == tl.chow_liu(df, alpha=0.5)
True
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, ClassVar

import networkx as nx
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils.validation import check_is_fitted

from .._base.errors import TreelearnError
from .._base.persistence import Persistent, SavedState, label_array
from ..encoding._table import DEFAULT_MAX_STATES, CategoricalTableInput, MissingPolicy
from ..models._base import Capable, Model
from ..models._clg import CLGTreeModel
from ..models._copula import CopulaTreeModel
from ..models._gaussian import GaussianTreeModel
from ..models._kernel_forest import KernelForestModel
from ..models._tree import TreeModel
from ..sources._kinds import as_frame, frame_of_array, match_features
from ..stats._settings import CONSTRAINTS, NOTES, READING, Prior
from ._bayes_trees import POSTERIOR_CONSTRAINTS, POSTERIOR_NOTES, TreePosterior, tree_posterior
from ._chow_liu import chow_liu
from ._clg_tree import CLG_CONSTRAINTS, CLG_NOTES, clg_tree
from ._copula import copula_chow_liu
from ._gaussian_chow_liu import gaussian_chow_liu
from ._kernel_forest import KERNEL_FOREST_CONSTRAINTS, KERNEL_FOREST_NOTES, kernel_forest

__all__ = [
    "BayesianTrees",
    "CLGTree",
    "ChowLiuTree",
    "CopulaTree",
    "GaussianTree",
    "KernelForest",
    "ModelEstimator",
]


class ModelEstimator(Persistent, Capable, DensityMixin, BaseEstimator):
    """The base of the estimators that learn one model (module docstring).

    A subclass sets ``learner`` (the function that learns the model), ``model_class`` (the
    :class:`~treelearn.Model` kind ``model_`` is: a saved file's model is read
    back as one), ``_parameter_constraints`` (its options' accepted forms, which
    ``learner`` checks) and defines ``__init__`` storing its options untouched.

    Attributes
    ----------
    model_ : the fitted model.
    n_features_in_ : the number of columns learned from.
    feature_names_in_ : their names (an array's columns are ``x0, x1, ...``).
    """

    capabilities = frozenset({"score", "sample"})
    #: the function that learns the model: ``learner(X, sample_weight=..., **options)``
    learner: ClassVar[Callable[..., Model]]
    #: the class of ``model_``
    model_class: ClassVar[type[Model]]
    _parameter_constraints: ClassVar[dict] = {}
    _parameter_notes: ClassVar[dict] = {}
    _saved_header = ("n_features", "feature_names")
    #: the learner reads a table of named columns, and no array: ``fit`` gives it an array as
    #: the table of its columns ``x0, x1, ...`` (as the classifiers take one)
    _table_input: ClassVar[bool] = False

    # ------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> ModelEstimator:
        """Learn the model from the rows of ``X`` (``y`` is ignored); returns self.

        ``sample_weight``: one non-negative weight per row (integer weights give the
        model of the rows repeated), or the name of the weight column of a file or a Dask
        DataFrame where the learner reads those. Every option is checked by ``learner``.
        """
        if self._table_input:  # an array: the table of its columns x0, x1, ...
            X = frame_of_array(X, learner=type(self).__name__)
        model = type(self).learner(X, sample_weight=sample_weight, **self.get_params(deep=False))
        self.model_ = model
        self.n_features_in_ = len(model.variables)
        self.feature_names_in_ = label_array(model.variables)
        return self

    # ------------------------------------------------------------ the model's answers
    def _rows(self, X: Any) -> pd.DataFrame:
        """``X`` as a DataFrame of the fitted columns, checked against them."""
        check_is_fitted(self)
        name = type(self).__name__
        names = list(self.feature_names_in_)
        matched = match_features(X, names=names, n_features=self.n_features_in_, estimator=name)
        return as_frame(matched, names, learner=name)

    def score_samples(self, X: Any) -> np.ndarray:
        """``log p(row)`` of each row of ``X`` in nats (the model's
        :meth:`~treelearn.Model.score_samples`)."""
        return self.model_.score_samples(self._rows(X))

    def score(self, X: Any, y: Any = None, sample_weight: Any = None) -> float:
        """The mean log-likelihood per row (with ``sample_weight``, the weighted mean):
        what ``GridSearchCV`` maximises."""
        return self.model_.score(self._rows(X), sample_weight=sample_weight)

    def bic(self, X: Any, sample_weight: Any = None) -> float:
        """``log_likelihood - n_parameters / 2 * ln n``: **larger is better** (the model's
        :meth:`~treelearn.Model.bic`)."""
        return self.model_.bic(self._rows(X), sample_weight=sample_weight)

    def aic(self, X: Any, sample_weight: Any = None) -> float:
        """``log_likelihood - n_parameters``: larger is better."""
        return self.model_.aic(self._rows(X), sample_weight=sample_weight)

    @property
    def n_parameters(self) -> int:
        """The model's number of free parameters (what BIC and AIC charge)."""
        check_is_fitted(self)
        return self.model_.n_parameters

    def sample(self, n: int, random_state: Any = None, **options: Any) -> pd.DataFrame:
        """``n`` rows drawn from the model (``options``, e.g. ``evidence=``, as the model's
        ``sample`` takes them)."""
        check_is_fitted(self)
        return self.model_.sample(n, random_state, **options)

    # ------------------------------------------------------------ files
    def _fitted_state(self) -> dict:
        """The model beside the codec's header."""
        return {"model": self.model_.to_dict()}

    def _restore_fitted(self, saved: SavedState) -> None:
        """The model, checked by its own ``from_dict``, over the saved features."""
        model = self.model_class.from_dict(saved.raw("model", dict))
        if list(self.feature_names_in_) != list(model.variables):
            raise saved.fail("feature_names", "differ from the model's variables")
        self.model_ = model


class ChowLiuTree(CategoricalTableInput, ModelEstimator):
    """The Chow-Liu tree (or forest) of discrete columns and its CPTs, as a scikit-learn
    density estimator: ``fit`` learns :attr:`model_`, a :class:`~treelearn.TreeModel`.

    The tree is the maximum spanning tree of the pairwise mutual information (the
    maximum-likelihood tree; ties broken by column order, so the same data gives the same
    tree), oriented away from ``root``; each CPT is smoothed by ``prior``. ``score`` is the
    mean log-likelihood per row, so ``GridSearchCV(ChowLiuTree(), {"alpha": [...]})`` picks
    the smoothing of best held-out likelihood. :func:`~treelearn.chow_liu` is
    ``ChowLiuTree(**options).fit(data, sample_weight=...).model_``.

    Parameters
    ----------
    root : hashable, default=None
        The root; ``None`` roots the tree at the **first column** (and each
        other tree of a forest at its first column). The root changes the
        direction of the edges, not the maximum-likelihood fit.
    alpha : float, default=1.0
        Lidstone pseudocount for the CPTs: ``(N + alpha) / (N_parent + k alpha)``;
        1 (Laplace) by default, 0 = maximum likelihood. Why 1: under maximum
        likelihood any combination of states unseen in the training rows gets
        probability 0, so a new row holding one scores ``-inf`` and a query with it as
        evidence is refused; 1 is scikit-learn's naive Bayes default and the smoothing of
        the DEBD reference numbers. The tree is chosen from the raw counts' MI
        (``mi_alpha=None``), so ``alpha`` changes the CPTs, never the tree.
    prior : {"lidstone", "bdeu", "m-estimate"}, default="lidstone"
        ``"lidstone"`` (uses ``alpha``), ``"bdeu"`` (uses ``equivalent_sample_size``)
        or ``"m-estimate"`` (uses ``m``: ``(N_ijk + m / r) / (N_ij + m)``).
    equivalent_sample_size : float, default=1.0
        BDeu's equivalent sample size (> 0).
    m : float, default=1.0
        The m-estimate's equivalent sample size (> 0).
    missing : {"error", "drop", "pairwise", "em"}, default="error"
        ``"error"`` (refuse missing cells), ``"drop"`` (drop incomplete rows),
        ``"pairwise"`` (each count from the rows where its columns are observed), or
        ``"em"``: structural EM over the missing cells (the iterations and
        log-likelihoods are in ``model_.settings``).
    mi_alpha : float, default=None
        Pseudocount added to each cell of the pairwise joint from which the
        tree-choosing MI is computed; ``None`` uses raw counts.
    forest : {"bic", "aic"}, float or None, default=None
        ``None`` for a spanning tree; ``"bic"`` keeps only edges with
        ``I_ij - (k_i - 1)(k_j - 1) ln(n) / (2n) > 0``; ``"aic"`` keeps edges with
        ``I_ij - (k_i - 1)(k_j - 1) / n > 0``; a number keeps edges with ``I_ij`` above it.
        Each tree of the forest is rooted at its first column (``root``'s at ``root``).
    whitelist, blacklist : sequence of pairs, default=None
        Undirected pairs of columns the tree must contain / must
        not contain (bnlearn's arguments): the best spanning tree (or forest) under
        these constraints. A
        whitelist with a cycle, or naming an unknown column, raises a TreelearnError.
    max_states : int, default=100
        The most states a column may have.
    states : dict, default=None
        Optional ``{column: [states]}`` fixing the states (and their order) of
        some or all columns; a value outside them raises :class:`UnseenStateError`.
        Giving every column's states lets a file be read in one pass, and makes
        :meth:`TreeModel.partial_fit` accept later rows with values the first rows lack.
    chunksize : int, default=200000
        Rows per chunk when the data is a file path.
    names : sequence of hashable, default=None
        The variables' names when the data is a ``scipy.sparse`` matrix of
        0/1 (or bool) values, rows x variables (default ``0, 1, ..., d - 1``); it
        is counted without densifying, as fast as its number of non-zeros allows
        (one sparse product), and gives the model
        of ``pd.DataFrame(matrix.toarray(), columns=names)``. With
        more than ``SPARSE_CHOW_LIU_MIN_COLUMNS`` (5,000) columns the tree is
        learned without any ``d x d`` array (Meila's acCL; the same model, without ``partial_fit``, ``forest``,
        ``whitelist``, ``blacklist`` or ``mi_alpha``).

    Notes
    -----
    Every column is discrete: a column of measurements is refused, naming the fixes (cut
    it into bins with :func:`~treelearn.discretize`, or learn a tree over mixed columns
    with :class:`~treelearn.CLGTree`).

    Attributes
    ----------
    model_ : the fitted :class:`~treelearn.TreeModel`; it keeps its pair counts
        (``model_.counts``), so :meth:`TreeModel.partial_fit` can add rows later.
    n_features_in_, feature_names_in_ : the columns learned from.

    See Also
    --------
    CLGTree : a tree over discrete and continuous columns.
    GaussianTree : a tree of continuous columns.
    BayesianTrees : the Bayesian average over every spanning tree.

    References
    ----------
    .. [1] Chow, C. K. and Liu, C. N. (1968). Approximating discrete probability
       distributions with dependence trees. IEEE Transactions on Information Theory
       14(3), 462-467.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv")
    >>> est = tl.ChowLiuTree(root="smoke").fit(df)
    >>> est.model_.root, est.model_.graph.number_of_edges()
    ('smoke', 7)
    >>> round(est.score(df), 4) == round(est.model_.log_likelihood(df) / len(df), 4)
    True
    """

    learner = staticmethod(chow_liu)
    _table_input = True
    model_class = TreeModel

    def __init__(
        self,
        root: Hashable | None = None,
        alpha: float = 1.0,
        *,
        prior: Prior = "lidstone",
        equivalent_sample_size: float = 1.0,
        m: float = 1.0,
        missing: MissingPolicy = "error",
        mi_alpha: float | None = None,
        forest: str | float | None = None,
        whitelist: Sequence[tuple] | None = None,
        blacklist: Sequence[tuple] | None = None,
        max_states: int = DEFAULT_MAX_STATES,
        states: Mapping[Hashable, Sequence] | None = None,
        chunksize: int = 200_000,
        names: Sequence[Hashable] | None = None,
    ) -> None:
        self.root = root
        self.alpha = alpha
        self.prior = prior
        self.equivalent_sample_size = equivalent_sample_size
        self.m = m
        self.missing = missing
        self.mi_alpha = mi_alpha
        self.forest = forest
        self.whitelist = whitelist
        self.blacklist = blacklist
        self.max_states = max_states
        self.states = states
        self.chunksize = chunksize
        self.names = names

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # 0/1 scipy.sparse matrices, counted without densifying
        tags.input_tags.allow_nan = False  # missing="error" by default; scoring sums NaN out
        return tags

    _parameter_constraints: ClassVar[dict] = {**CONSTRAINTS, **READING}
    _parameter_notes: ClassVar[dict] = NOTES


class GaussianTree(ModelEstimator):
    """The maximum-likelihood linear-Gaussian tree of numeric columns, as a scikit-learn
    density estimator: ``fit`` learns :attr:`model_`, a :class:`~treelearn.GaussianTreeModel`.

    The tree is the maximum spanning tree of ``-1/2 log(1 - rho^2)`` (ties broken by
    column order, as for :class:`~treelearn.ChowLiuTree`), rooted at ``root``; each
    variable is regressed on its parent by (weighted) least squares.
    :func:`~treelearn.gaussian_chow_liu` is ``GaussianTree(**options).fit(data,
    sample_weight=...).model_``.

    Parameters
    ----------
    root : hashable, default=None
        The root (default: the first column).
    chunksize : int, default=200000
        Rows per chunk when the data is a file path (read in chunks, never whole).

    Notes
    -----
    The data is a DataFrame or 2-D array of numbers (no missing values), a CSV/Parquet path
    (``sample_weight`` may name its weight column) or a Dask DataFrame (reduced on its
    workers; ``sample_weight`` a column name or a Dask Series partitioned like it); every
    kind gives the same model.

    Attributes
    ----------
    model_ : the fitted :class:`~treelearn.GaussianTreeModel`.
    n_features_in_, feature_names_in_ : the columns learned from.

    See Also
    --------
    CopulaTree : any continuous marginals, joined by a Gaussian tree of their normal scores.
    KernelForest : kernel density marginals and pairs.
    CLGTree : discrete and continuous columns.

    References
    ----------
    .. [1] Chow, C. K. and Liu, C. N. (1968). Approximating discrete probability
       distributions with dependence trees. IEEE Transactions on Information Theory
       14(3), 462-467.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=300)
    >>> df = pd.DataFrame({"a": a, "b": a + rng.normal(size=300), "c": rng.normal(size=300)})
    >>> est = tl.GaussianTree().fit(df)
    >>> sorted(est.model_.graph.edges())   # c is independent: its edge carries ~0 nats
    [('a', 'b'), ('b', 'c')]
    >>> est.n_parameters   # the root's mean and variance, each child's line and variance
    8
    """

    learner = staticmethod(gaussian_chow_liu)
    model_class = GaussianTreeModel

    def __init__(self, root: Hashable | None = None, *, chunksize: int = 200_000) -> None:
        self.root = root
        self.chunksize = chunksize

    _parameter_constraints: ClassVar[dict] = {"chunksize": READING["chunksize"]}


class CLGTree(ModelEstimator):
    """A conditional linear Gaussian tree (or forest) over discrete and continuous columns,
    as a scikit-learn density estimator: ``fit`` learns :attr:`model_`, a
    :class:`~treelearn.CLGTreeModel`.

    The tree is the best spanning tree (or penalised forest) in which no discrete column has
    a continuous parent, its edge weights the exact mutual information of each pair kind
    (discrete-discrete, discrete-continuous, continuous-continuous); the parameters are
    each family's maximum-likelihood ones. :func:`~treelearn.clg_tree` is
    ``CLGTree(**options).fit(data, sample_weight=...).model_``.

    Parameters
    ----------
    root : hashable, default=None
        The root (discrete in a tree holding a discrete column); ``None``: the first
        column of each tree, a discrete one where the tree has one.
    alpha : float, default=1.0
        As :class:`~treelearn.ChowLiuTree`'s, for the discrete columns.
    prior : {"lidstone", "bdeu", "m-estimate"}, default="lidstone"
        As :class:`~treelearn.ChowLiuTree`'s, for the discrete columns.
    equivalent_sample_size : float, default=1.0
        As :class:`~treelearn.ChowLiuTree`'s, for the discrete columns.
    m : float, default=1.0
        As :class:`~treelearn.ChowLiuTree`'s, for the discrete columns.
    mi_alpha : float, default=None
        As :class:`~treelearn.ChowLiuTree`'s, for the discrete columns.
    forest : {"bic", "aic"}, float or None, default=None
        As :class:`~treelearn.ChowLiuTree`'s, for every edge.
    whitelist : sequence of pairs, default=None
        As :class:`~treelearn.ChowLiuTree`'s, for every edge.
    blacklist : sequence of pairs, default=None
        As :class:`~treelearn.ChowLiuTree`'s, for every edge.
    max_states : int, default=100
        As :class:`~treelearn.ChowLiuTree`'s.
    states : dict, default=None
        As :class:`~treelearn.ChowLiuTree`'s; it gives no continuous column states.
    missing : {"error", "drop", "pairwise"}, default="error"
        ``"error"``, ``"drop"`` (incomplete rows dropped) or ``"pairwise"`` (each
        statistic over the rows where its columns are observed); missing cells are summed
        out exactly when scoring and querying.
    chunksize : int, default=200000
        Rows per chunk of a file whose columns are all discrete (a file with
        continuous columns is read whole).
    numeric : "auto" or list of hashable, default="auto"
        ``"auto"`` (the default): every float column is continuous (as
        :class:`~treelearn.MixedNaiveBayes` decides: by dtype, never by how often values
        repeat); or the names of the continuous columns, whatever their dtype. A table
        without continuous columns gives the Chow-Liu tree of its columns as a CLG tree
        without continuous nodes.

    Notes
    -----
    The data is a DataFrame, a CSV/Parquet path (read whole) or a 2-D array (columns
    ``x0, x1, ...``; a float array's columns are all continuous).

    Attributes
    ----------
    model_ : the fitted :class:`~treelearn.CLGTreeModel`.
    n_features_in_, feature_names_in_ : the columns learned from.

    See Also
    --------
    ChowLiuTree : every column discrete.
    GaussianTree : every column continuous (a linear-Gaussian tree; the same tree as a CLG
        tree of continuous columns).
    MixedTAN : the classifier whose features form a CLG tree.

    References
    ----------
    .. [1] Lauritzen, S. L. and Wermuth, N. (1989). Graphical models for associations
       between variables, some of which are qualitative and some quantitative. The Annals
       of Statistics 17(1), 31-57.
    .. [2] Chow, C. K. and Liu, C. N. (1968). Approximating discrete probability
       distributions with dependence trees. IEEE Transactions on Information Theory
       14(3), 462-467.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 2, 500)
    >>> df = pd.DataFrame({"g": g, "x": rng.normal(3.0 * g, 1.0)})
    >>> df["y"] = df["x"] * 2 + rng.normal(size=500)
    >>> est = tl.CLGTree().fit(df)
    >>> est.model_.continuous, sorted(est.model_.graph.edges())
    (['x', 'y'], [('g', 'x'), ('x', 'y')])
    """

    learner = staticmethod(clg_tree)
    _table_input = True
    model_class = CLGTreeModel

    def __init__(
        self,
        root: Hashable | None = None,
        alpha: float = 1.0,
        *,
        prior: Prior = "lidstone",
        equivalent_sample_size: float = 1.0,
        m: float = 1.0,
        missing: str = "error",
        mi_alpha: float | None = None,
        forest: str | float | None = None,
        whitelist: Sequence[tuple] | None = None,
        blacklist: Sequence[tuple] | None = None,
        max_states: int = DEFAULT_MAX_STATES,
        states: Mapping[Hashable, Sequence] | None = None,
        chunksize: int = 200_000,
        numeric: Sequence[Hashable] | str = "auto",
    ) -> None:
        self.root = root
        self.alpha = alpha
        self.prior = prior
        self.equivalent_sample_size = equivalent_sample_size
        self.m = m
        self.missing = missing
        self.mi_alpha = mi_alpha
        self.forest = forest
        self.whitelist = whitelist
        self.blacklist = blacklist
        self.max_states = max_states
        self.states = states
        self.chunksize = chunksize
        self.numeric = numeric

    _parameter_constraints: ClassVar[dict] = {**CONSTRAINTS, **READING, **CLG_CONSTRAINTS}
    _parameter_notes: ClassVar[dict] = {**NOTES, **CLG_NOTES}


class CopulaTree(ModelEstimator):
    """A Gaussian-copula (nonparanormal) tree of numeric columns, as a scikit-learn density
    estimator: ``fit`` learns :attr:`model_`, a :class:`~treelearn.CopulaTreeModel`.

    Each column's smoothed empirical CDF is its marginal; the Gaussian Chow-Liu tree of the
    truncated normal scores joins them: density,
    sampling and queries in the original units. :func:`~treelearn.copula_chow_liu` is
    ``CopulaTree(root).fit(data, sample_weight=...).model_``.

    Parameters
    ----------
    root : hashable, default=None
        The root of the scores' tree (default: the first column).

    Notes
    -----
    The data is a DataFrame or 2-D array of numbers, no missing values (scoring integrates
    missing cells out).

    Attributes
    ----------
    model_ : the fitted :class:`~treelearn.CopulaTreeModel`.
    n_features_in_, feature_names_in_ : the columns learned from.

    See Also
    --------
    GaussianTree : Gaussian marginals (a linear-Gaussian tree).
    KernelForest : kernel density marginals and pairs, the forest pruned on held-out rows.

    References
    ----------
    .. [1] Liu, H., Lafferty, J. and Wasserman, L. (2009). The nonparanormal:
       semiparametric estimation of high dimensional undirected graphs. Journal of
       Machine Learning Research 10, 2295-2328.
    .. [2] Elidan, G. (2010). Copula Bayesian networks. Advances in Neural Information
       Processing Systems 23, 559-567.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=300)
    >>> df = pd.DataFrame({"x": x, "y": np.log1p(x) + 0.1 * rng.normal(size=300)})
    >>> est = tl.CopulaTree().fit(df)
    >>> bool(est.score(df) > tl.GaussianTree().fit(df).score(df))   # skewed marginals
    True
    """

    learner = staticmethod(copula_chow_liu)
    model_class = CopulaTreeModel

    def __init__(self, root: Hashable | None = None) -> None:
        self.root = root


class KernelForest(ModelEstimator):
    """A forest density of Gaussian KDEs over numeric columns (Liu et al., JMLR 2011), as a
    scikit-learn density estimator: ``fit`` learns :attr:`model_`, a
    :class:`~treelearn.KernelForestModel`.

    The edges are chosen by kernel MI on one part of the rows and pruned by held-out
    log-likelihood on the other.
    :func:`~treelearn.kernel_forest` is
    ``KernelForest(**options).fit(data, sample_weight=...).model_``.

    Parameters
    ----------
    bandwidth : "scott", "silverman" or float, default="scott"
        Scipy's ``gaussian_kde`` ``bw_method``: ``"scott"``, ``"silverman"`` or the
        factor of the data's standard deviation.
    split : float, default=0.5
        The share of rows that estimates the tree; the rest prunes it.
    grid : int, default=48
        Grid points per column of the numerical MI integral.
    refit : bool, default=True
        Refit the final KDEs on every row (else on the estimating part only).
    method : {"auto", "exact", "binned"}, default="auto"
        ``"exact"`` (sum every kernel; time grows with rows squared), ``"binned"``
        (rows binned onto grids, FFT convolution; time linear in rows) or ``"auto"``
        (exact up to 2,000 rows, binned past it).
    random_state : int, numpy.random.Generator or None, default=None
        The seed of the split into two parts.

    Notes
    -----
    The data is a DataFrame or 2-D array of numbers, no missing values (scoring integrates
    missing cells out).

    Attributes
    ----------
    model_ : the fitted :class:`~treelearn.KernelForestModel`; ``model_.held_out_gains_``
        is each spanning-tree edge's held-out log-likelihood gain (what the pruning read),
        ``model_.split_rows_`` the positions of each part.
    n_features_in_, feature_names_in_ : the columns learned from.

    See Also
    --------
    CopulaTree : smoothed empirical marginals joined by a Gaussian tree.
    GaussianTree : a linear-Gaussian tree.

    References
    ----------
    .. [1] Liu, H., Xu, M., Gu, H., Gupta, A., Lafferty, J. and Wasserman, L. (2011).
       Forest density estimation. Journal of Machine Learning Research 12, 907-951.

    Examples
    --------
    >>> import numpy as np, pandas as pd, treelearn as tl
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=400)
    >>> df = pd.DataFrame({"x": x, "y": np.sqrt(x) + 0.1 * rng.normal(size=400)})
    >>> est = tl.KernelForest(random_state=0).fit(df)
    >>> est.model_.edges
    [('x', 'y')]
    """

    learner = staticmethod(kernel_forest)
    model_class = KernelForestModel

    def __init__(
        self,
        bandwidth: str | float = "scott",
        *,
        split: float = 0.5,
        grid: int = 48,
        refit: bool = True,
        method: str = "auto",
        random_state: Any = None,
    ) -> None:
        self.bandwidth = bandwidth
        self.split = split
        self.grid = grid
        self.refit = refit
        self.method = method
        self.random_state = random_state

    _parameter_constraints: ClassVar[dict] = KERNEL_FOREST_CONSTRAINTS
    _parameter_notes: ClassVar[dict] = KERNEL_FOREST_NOTES


class BayesianTrees(CategoricalTableInput, ModelEstimator):
    """The exact Bayesian average over every spanning tree of discrete columns, as a
    scikit-learn density estimator: ``fit`` learns :attr:`model_`, a
    :class:`~treelearn.TreePosterior` (the posterior over trees, its scores the posterior
    predictive). :func:`~treelearn.tree_posterior` is
    ``BayesianTrees(**options).fit(data, sample_weight=...).model_``.

    Parameters
    ----------
    equivalent_sample_size : float, default=1.0
        BDeu's equivalent sample size (> 0; pgmpy's name).
    edge_prior : array-like or networkx.Graph, default=None
        ``None`` (uniform over trees), a symmetric ``d x d`` matrix of
        non-negative edge factors ``β`` in column order, or an ``nx.Graph`` over
        the variables whose edges carry ``prior`` (default 1; pairs that are not
        edges are forbidden). ``P(T) ∝ prod_{uv in T} β_uv``. (Saving the estimator needs
        the matrix form; the fitted posterior saves either.)
    missing : {"error", "drop"}, default="error"
        ``"error"`` or ``"drop"`` (incomplete rows are dropped);
        ``"pairwise"`` is refused (the posterior needs complete rows).
    max_states : int, default=100
        As :class:`~treelearn.ChowLiuTree`'s.
    states : dict, default=None
        As :class:`~treelearn.ChowLiuTree`'s.
    chunksize : int, default=200000
        As :class:`~treelearn.ChowLiuTree`'s.

    Notes
    -----
    The data is a DataFrame, a CSV/Parquet path read in chunks, Dask DataFrame, ``scipy.sparse`` 0/1 matrix), or a 2-D
    array (columns ``x0, x1, ...``).

    Attributes
    ----------
    model_ : the fitted :class:`~treelearn.TreePosterior`.
    n_features_in_, feature_names_in_ : the columns learned from.

    See Also
    --------
    ChowLiuTree : the one tree of maximum likelihood.

    References
    ----------
    .. [1] Meila, M. and Jaakkola, T. (2006). Tractable Bayesian learning of tree
       belief networks. Statistics and Computing 16(1), 77-92.

    Examples
    --------
    >>> import pandas as pd, treelearn as tl
    >>> df = pd.read_csv("datasets/asia.csv").iloc[:300]
    >>> est = tl.BayesianTrees(equivalent_sample_size=1.0).fit(df)
    >>> round(float(est.model_.edge_posterior_matrix.sum()) / 2, 9)   # d - 1 edges per tree
    7.0
    """

    learner = staticmethod(tree_posterior)
    _table_input = True
    model_class = TreePosterior

    def __init__(
        self,
        equivalent_sample_size: float = 1.0,
        edge_prior: Any = None,
        *,
        missing: MissingPolicy = "error",
        max_states: int = DEFAULT_MAX_STATES,
        states: Mapping[Hashable, Sequence] | None = None,
        chunksize: int = 200_000,
    ) -> None:
        self.equivalent_sample_size = equivalent_sample_size
        self.edge_prior = edge_prior
        self.missing = missing
        self.max_states = max_states
        self.states = states
        self.chunksize = chunksize

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # 0/1 scipy.sparse matrices, counted without densifying
        tags.input_tags.allow_nan = False  # complete rows only; scoring sums NaN out
        return tags

    _parameter_constraints: ClassVar[dict] = POSTERIOR_CONSTRAINTS
    _parameter_notes: ClassVar[dict] = POSTERIOR_NOTES

    def to_dict(self) -> dict:
        """As every estimator's (the state :func:`treelearn.save` writes); an ``nx.Graph`` edge prior has
        no saved form as an option, which is said before anything is written."""
        if isinstance(self.edge_prior, nx.Graph):
            raise TreelearnError(
                "a BayesianTrees whose edge_prior is an nx.Graph cannot be saved: give "
                "edge_prior as the d x d matrix of edge factors (column order), or save the "
                "fitted posterior, est.model_, which keeps either"
            )
        return super().to_dict()
