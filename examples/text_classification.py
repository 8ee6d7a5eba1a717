"""Text classification: which library wrote this docstring? Bag of words, naive Bayes, TAN
=======================================================================================

The corpus is real text that ships with installed packages, so nothing is
downloaded: the summary paragraphs (the text before "Parameters", "Returns",
"Examples", ...) of the public functions' and classes' docstrings of NetworkX,
SciPy's scipy.stats, NumPy and pandas; the class is the library. The library
names themselves are stop words. The numbers depend on the installed versions.

The documents become a sparse bag of words (scikit-learn's CountVectorizer),
never made dense for the two text event models of naive Bayes (Bernoulli: word
presence; multinomial: word counts). Then the terms with the largest mutual
information with the class (tl.rank_features, straight from the sparse matrix)
become 0/1 columns for categorical naive Bayes and TAN; TAN's tree of words
(the maximum spanning tree of I(word_i; word_j | library)) is drawn into out/.

From the shell::

    python examples/text_classification.py [--terms 25] [--out DIR]
"""

import argparse
import importlib
import inspect
import os
import re

import matplotlib

matplotlib.use("Agg")  # write files; no window needed

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer
from sklearn.model_selection import train_test_split

import treelearn as tl

# this script's folder (the docs' gallery runs it from there, without __file__)
HERE = os.path.dirname(os.path.abspath(globals().get("__file__", "text_classification.py")))
LIBRARIES = {
    "networkx": ["networkx"],
    "scipy.stats": ["scipy.stats"],
    "numpy": ["numpy", "numpy.linalg", "numpy.random"],
    "pandas": ["pandas"],
}
NAMES = {"networkx", "nx", "scipy", "stats", "numpy", "np", "pandas", "pd"}
SECTION = re.compile(
    r"\n\s*(?:Parameters|Returns|Yields|Raises|Examples|See Also|Notes|"
    r"Attributes|Methods|References)\n\s*-{3,}"
)

parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
parser.add_argument("--terms", type=int, default=25, help="top-MI terms for NB and TAN")
parser.add_argument(
    "--out",
    default=os.path.join(HERE, "..", "out"),
    help="folder for the picture (default: out/ in the repository, git-ignored)",
)
args = parser.parse_args()


def docstrings(modules):
    """The summary paragraphs of a package's public callables (each object once)."""
    seen, texts = set(), []
    for module in modules:
        mod = importlib.import_module(module)
        for name in sorted(dir(mod)):
            obj = getattr(mod, name, None)
            if name.startswith("_") or not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            doc = inspect.getdoc(obj) or ""
            summary = SECTION.split(doc)[0]
            if len(summary.split()) >= 15:  # a sentence or two at least
                texts.append(summary)
    return texts


texts, labels = [], []
for library, modules in LIBRARIES.items():
    found = docstrings(modules)
    texts += found
    labels += [library] * len(found)
y = pd.Series(labels, name="library")  # the class node's name in the pictures
print(
    f"{len(texts)} docstrings: " + ", ".join(f"{lib} {int((y == lib).sum())}" for lib in LIBRARIES)
)

vectorizer = CountVectorizer(
    token_pattern=r"(?u)\b[a-zA-Z]{3,}\b", min_df=3, stop_words=sorted(ENGLISH_STOP_WORDS | NAMES)
)
X = vectorizer.fit_transform(texts)  # scipy.sparse CSR, documents x terms
vocabulary = vectorizer.get_feature_names_out()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
y_train, y_test = y_train.reset_index(drop=True), y_test.reset_index(drop=True)
print(
    f"{X.shape[1]} terms, {X.nnz / np.prod(X.shape):.2%} of the matrix non-zero; "
    f"{X_train.shape[0]} training and {X_test.shape[0]} test documents"
)
print(f"\n{'model':40s} {'accuracy':>9s}")
for event_model in ("bernoulli", "multinomial"):
    clf = tl.TextNaiveBayes(event_model).fit(X_train, y_train)  # stays sparse
    print(f"{'naive Bayes, ' + event_model + ', all terms':40s} {clf.score(X_test, y_test):9.3f}")

# the terms that say most about the library, from the sparse matrix directly
ranking = tl.rank_features(X_train, y_train, feature_names=vocabulary)
top = list(ranking.index[: args.terms])
print(f"\ntop terms by I(term present; library): {', '.join(top[:12])}, ...")


def presence(M):
    """0/1 columns of the top terms (a small dense table: terms x documents stays small)."""
    columns = [int(np.flatnonzero(vocabulary == t)[0]) for t in top]
    return pd.DataFrame((M[:, columns] > 0).toarray().astype(int), columns=top)


train, test = presence(X_train), presence(X_test)
nb = tl.NaiveBayes().fit(train, y_train)
tan = tl.TAN().fit(train, y_train)
for name, clf in ((f"naive Bayes, top {len(top)} terms", nb), (f"TAN, top {len(top)} terms", tan)):
    print(f"{name:40s} {clf.score(test, y_test):9.3f}")

# the word tree TAN learned: which terms co-occur beyond what the library explains
edges = sorted(tan.feature_tree_.edges(data="weight"), key=lambda e: -e[2])
print("\nstrongest links of TAN's word tree (conditional MI, nats):")
for u, v, w in edges[:6]:
    print(f"  {u:>14s} -- {v:<14s} {w:.3f}")
fig = tan.draw(title="TAN word tree: docstrings by library")
os.makedirs(args.out, exist_ok=True)
path = os.path.join(args.out, "text_word_tree.png")
fig.savefig(path, dpi=120, bbox_inches="tight")
print(f"\nwrote {path}")
