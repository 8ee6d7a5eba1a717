"""Shared helpers for the tests: data from known tree networks, small fixed tables,
Hypothesis' random tables, pgmpy's example networks, problem tables and the one check of
a refusal (:func:`expect`). The independent reference computations (entropies, mutual
information, likelihoods by counting, brute-force enumeration) are in tests/oracles.py.
"""

from __future__ import annotations

import contextlib
import functools
import io
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import treelearn as tl


# ---------------------------------------------------------------- data makers
def random_tree_edges(d: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """A random labelled tree on 0..d-1 as (parent, child) pairs, rooted at 0."""
    order = [0, *(1 + rng.permutation(d - 1)).tolist()]  # 0 is the root
    edges = []
    for i in range(1, d):
        edges.append((int(order[rng.integers(0, i)]), int(order[i])))
    return edges


def random_tree_network(
    d: int,
    cards: list[int],
    rng: np.random.Generator,
    strength: float = 0.8,
) -> tuple[list[tuple[int, int]], dict[int, np.ndarray]]:
    """Random tree network: edges (parent, child) and CPTs ``[parent state, own state]``.

    Each conditional row puts ``strength`` of its mass on one state that depends on
    the parent state (a strong dependency), the rest spread at random.
    """
    edges = random_tree_edges(d, rng)
    parent = {c: p for p, c in edges}
    cpts = {}
    for v in range(d):
        k = cards[v]
        if v not in parent:
            cpts[v] = rng.dirichlet(np.ones(k) * 2)
            continue
        kp = cards[parent[v]]
        table = np.empty((kp, k))
        shift = int(rng.integers(0, k))
        for a in range(kp):
            row = rng.dirichlet(np.ones(k)) * (1 - strength)
            row[(a + shift) % k] += strength
            table[a] = row
        cpts[v] = table
    return edges, cpts


def sample_tree_network(
    edges: list[tuple[int, int]],
    cpts: dict[int, np.ndarray],
    n: int,
    rng: np.random.Generator,
    names: list | None = None,
) -> pd.DataFrame:
    """Forward-sample ``n`` rows (integer codes) from a tree network made by :func:`random_tree_network`."""
    d = len(cpts)
    parent = {c: p for p, c in edges}
    codes = np.zeros((n, d), dtype=np.int64)
    done: set = set()
    todo = list(range(d))
    while todo:
        for v in list(todo):
            if v in parent and parent[v] not in done:
                continue
            probs = cpts[v][codes[:, parent[v]]] if v in parent else np.tile(cpts[v], (n, 1))
            u = rng.random(n)[:, None]
            codes[:, v] = np.minimum((np.cumsum(probs, axis=1) < u).sum(axis=1), probs.shape[1] - 1)
            done.add(v)
            todo.remove(v)
    names = names or [f"x{j}" for j in range(d)]
    return pd.DataFrame(codes, columns=names)


def random_dependent_frame(n: int, cards: list[int], rng: np.random.Generator) -> pd.DataFrame:
    """Random data with some (random, not tree-shaped) dependencies between columns."""
    latent = rng.integers(0, 3, size=n)
    cols = {}
    for j, k in enumerate(cards):
        noise = rng.integers(0, k, size=n)
        keep = rng.random(n) < rng.uniform(0.1, 0.7)
        other = (latent + j) % k if j % 2 == 0 else (cols[f"v{j - 1}"] + latent) % k
        cols[f"v{j}"] = np.where(keep, other, noise)
    return pd.DataFrame(cols)


def tiny_frame() -> pd.DataFrame:
    """Four rows of three columns (text, numbers, booleans): the smallest table the
    hostile-input tests learn from."""
    return pd.DataFrame(
        {"a": ["x", "y", "x", "y"], "b": [1, 2, 1, 1], "c": [True, False, True, True]}
    )


def three_small_columns() -> tuple[pd.DataFrame, np.ndarray]:
    """80 rows of three random categorical columns (2, 3 and 2 states) and 80 random
    binary labels, from ``default_rng(26)``: the table of issue 26's input tests."""
    rng = np.random.default_rng(26)
    frame = pd.DataFrame(
        {"a": rng.integers(0, 2, 80), "b": rng.integers(0, 3, 80), "c": rng.integers(0, 2, 80)}
    )
    return frame, rng.integers(0, 2, 80)


def random_codes(rng: np.random.Generator, n: int, d: int, max_card: int = 5, missing: float = 0.0):
    """``n x d`` state codes (int8, ``-1`` missing in some columns) of random
    cardinalities up to ``max_card``, and the cardinalities."""
    card = rng.integers(1, max_card + 1, size=d)
    codes = (rng.integers(0, 1000, size=(n, d)) % card).astype(np.int8)
    if missing:
        holes = (rng.random((n, d)) < missing) & (rng.random(d) < 0.6)
        codes[holes] = -1
    return codes, card


# ---------------------------------------------------------------- Hypothesis' random tables
#: few examples each (the suite stays fast), the same ones every run
FAST = settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def tables(draw, min_columns=2, max_columns=4):
    """A table of small integer states, every state of a column seen, and row weights
    (whole, fractional or with zeros)."""
    d = draw(st.integers(min_columns, max_columns))
    n = draw(st.integers(4, 30))
    cards = draw(st.lists(st.integers(2, 3), min_size=d, max_size=d))
    cols = {}
    for j, k in enumerate(cards):
        body = draw(st.lists(st.integers(0, k - 1), min_size=n - k, max_size=n - k))
        cols[f"v{j}"] = [*range(k), *body]  # every state once at least
    kind = draw(st.sampled_from(["none", "whole", "fractional"]))
    if kind == "none":
        w = np.ones(n)
    elif kind == "whole":
        w = np.array(draw(st.lists(st.integers(1, 5), min_size=n, max_size=n)), float)
    else:
        w = np.array(draw(st.lists(st.floats(0.01, 3.0), min_size=n, max_size=n)))
    return pd.DataFrame(cols), w


# ---------------------------------------------------------------- refusals
def installed_command() -> str | None:
    """The installed ``treelearn`` command: the one beside this Python (its venv's), else
    the one on ``PATH``; ``None`` when neither is installed."""
    exe = Path(sys.executable).parent / "treelearn"
    return str(exe) if exe.exists() else shutil.which("treelearn")


def run_installed(*argv, cwd: str | Path | None = None) -> str:
    """Standard output of the installed ``treelearn`` command (:func:`installed_command`,
    else ``python -m treelearn`` of this Python) run with ``argv`` in a subprocess, after
    checking that it succeeded (its standard error the failure's message)."""
    found = installed_command()
    command = [found] if found else [sys.executable, "-m", "treelearn"]
    done = subprocess.run(
        [*command, *map(str, argv)], capture_output=True, text=True, cwd=cwd, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def run_cli(*argv) -> tuple[int, str, str]:
    """The ``treelearn`` command line in this process: its return code, standard output and
    standard error (warnings silenced, as the installed command's notes go to stderr)."""
    from treelearn.cli._main import main

    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def pop_all(obj, key: str) -> list:
    """Every value of ``key`` in the nested dicts and lists of ``obj``, taken out."""
    found = []
    if isinstance(obj, dict):
        if key in obj:
            found.append(obj.pop(key))
        for value in obj.values():
            found += pop_all(value, key)
    elif isinstance(obj, list):
        for value in obj:
            found += pop_all(value, key)
    return found


def expect(error: type, pattern: str, fn, *args, **kwargs) -> None:
    """``fn(*args, **kwargs)`` raises a TreelearnError that is an ``error`` and whose
    message holds ``pattern`` (never a raw pandas/numpy/pyarrow/json error)."""
    with pytest.raises(tl.TreelearnError) as info:
        fn(*args, **kwargs)
    assert isinstance(info.value, error), (type(info.value), str(info.value))
    assert pattern in str(info.value), str(info.value)


# ---------------------------------------------------------------- edge sets
def undirected(edges) -> set[frozenset]:
    return {frozenset(e) for e in edges}


# ---------------------------------------------------------------- pgmpy examples
@functools.cache
def pgmpy_example(name: str):
    from pgmpy.utils import get_example_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return get_example_model(name)


@functools.cache
def _pgmpy_sample(name: str, size: int, seed: int) -> pd.DataFrame:
    from pgmpy.sampling import BayesianModelSampling

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BayesianModelSampling(pgmpy_example(name)).forward_sample(
            size=size, seed=seed, show_progress=False
        )


def pgmpy_sample(name: str, size: int, seed: int = 0) -> pd.DataFrame:
    """Rows forward-sampled from a bundled pgmpy network (a fresh copy each call)."""
    return _pgmpy_sample(name, size, seed).copy()


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


# ---------------------------------------------------------------- tables with problems
def problem_frame(n: int = 3000, seed: int = 0, problems: bool = True) -> pd.DataFrame:
    """A table whose problems lie in different places of its ``n`` rows (for files read
    in chunks of ``n // 3`` rows and Dask frames in several partitions), and the problems
    ``encode`` reports for it, by hand: ``(type name, column)`` in column order (the
    missing values first).

    ``f1``: fractional levels, each repeated, except 9.25 once (row n/2); ``f2``:
    measurements, all distinct; ``g``: whole numbers and one ``inf`` (row 5n/6); ``m``:
    text with gaps in the first and last third; ``e``: nothing observed; ``id``:
    ``n // 20`` labels, a third of them in each third of the rows. With
    ``problems=False`` the same kinds of columns without problems (notes only).
    """
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    f1 = np.resize([0.5, 1.5, 2.5], n)
    f2 = np.round(rng.normal(size=n), 6)
    g = (a + 1).astype(float)
    m = np.array(["lo", "mid", "hi"], dtype=object)[rng.integers(0, 3, n)]
    if problems:
        f1[n // 2] = 9.25
        g[5 * n // 6] = np.inf
        m[[n // 10, n - 5]] = None
    else:
        f2 = np.clip(np.round(f2 * 2), -2, 2) / 4 + 0.125  # 5 levels, each repeated
    out = pd.DataFrame(
        {"a": a, "f1": f1, "f2": f2, "g": g, "m": m, "k": np.arange(n) % 30}
    )  # 30 whole numbers: a note
    if problems:
        out["e"] = np.nan
        out["id"] = [f"s{i // 20}" for i in range(n)]
    return out


#: the problems of problem_frame(), by hand
FRAME_PROBLEMS = [
    ("MissingValuesError", "m"),
    ("NumericColumnError", "f1"),
    ("NumericColumnError", "f2"),
    ("NumericColumnError", "g"),
    ("EmptyDataError", "e"),
    ("TooManyStatesError", "id"),
]


def problem_kinds(error: Exception) -> list[tuple[str, object]]:
    """``(type name, column)`` of each problem of a TableProblemsError."""
    return [(type(p).__name__, p.column) for p in error.problems]


def pytest_collection_modifyitems(config, items):
    """Doctests of the pyAgrum adapter need pyagrum, an optional extra
    (``pip install -e ".[pyagrum]"``): skipped, saying so, where it is not installed (the
    adapter's tests in tests/ skip the same way, through ``importorskip``)."""
    try:
        import pyagrum  # noqa: F401
    except ImportError:
        skip = pytest.mark.skip(reason="pyagrum is not installed (the 'pyagrum' extra)")
        for item in items:
            if isinstance(item, pytest.DoctestItem) and "pyagrum" in item.name:
                item.add_marker(skip)
