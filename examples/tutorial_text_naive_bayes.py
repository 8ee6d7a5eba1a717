"""Tutorial: naive Bayes for text, multinomial and Bernoulli
=========================================================

From the course material treelearn grew from: a document is a bag of words; the
**multinomial** event model draws its words one by one from the class's word
distribution, the **Bernoulli** model says for every word of the vocabulary whether it
occurs. Laplace smoothing (``alpha=1``) keeps unseen words from zeroing a class out.

The corpus is a dozen short messages written here (spam or not), so every number is
small enough to check by hand. Each number is computed twice, by hand from the counts
and by :class:`treelearn.TextNaiveBayes`, and compared with scikit-learn's
``MultinomialNB`` and ``BernoulliNB`` as a third opinion; the script asserts they agree.

From the shell::

    python examples/tutorial_text_naive_bayes.py
"""

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

import treelearn as tl

messages = [
    ("win cash now", "spam"),
    ("cheap pills win win", "spam"),
    ("claim your cash prize now", "spam"),
    ("win a free prize", "spam"),
    ("free cash free pills", "spam"),
    ("lunch at noon", "ham"),
    ("are we still on for lunch", "ham"),
    ("the meeting moved to noon", "ham"),
    ("your slides for the meeting", "ham"),
    ("call me about lunch", "ham"),
    ("free for lunch now", "ham"),
    ("notes from the meeting", "ham"),
]
texts = [text for text, _ in messages]
y = np.array([label for _, label in messages])

# %%
# The bag of words
# ----------------
# scikit-learn's ``CountVectorizer`` turns the messages into a sparse matrix of word
# counts (documents x vocabulary). treelearn takes it as it is, never dense.

vectorizer = CountVectorizer()
X = vectorizer.fit_transform(texts)
vocabulary = vectorizer.get_feature_names_out()
print(X.shape[0], "messages,", X.shape[1], "words in the vocabulary")

# %%
# The multinomial model, by hand
# ------------------------------
# ``theta_cj = (n_cj + alpha) / (n_c + alpha |V|)``: ``n_cj`` counts word ``j`` in the
# class's messages, ``n_c`` all their words. The prior is the class frequency.

counts = pd.DataFrame(X.toarray(), columns=vocabulary).groupby(y).sum()
n_c = counts.sum(axis=1)
V = len(vocabulary)
theta = (counts + 1).div(n_c + V, axis=0)
print(
    "P('win' | spam) =",
    f"({counts.loc['spam', 'win']} + 1) / ({n_c['spam']} + {V})",
    "=",
    round(theta.loc["spam", "win"], 4),
)

multinomial = tl.TextNaiveBayes("multinomial", alpha=1.0).fit(X, y)
assert list(multinomial.classes_) == ["ham", "spam"]
assert np.allclose(np.exp(multinomial.feature_log_prob_), theta.to_numpy())
sk_multinomial = MultinomialNB(alpha=1.0).fit(X, y)
assert np.allclose(multinomial.feature_log_prob_, sk_multinomial.feature_log_prob_)
print("treelearn's and scikit-learn's word probabilities equal the hand computation")

# %%
# A new message, scored by hand
# -----------------------------
# ``log P(c | d) = log P(c) + sum_j x_j log theta_cj - log Z``: the words of the message,
# each as often as it occurs.

new = ["free lunch now", "cash prize for the meeting"]
X_new = vectorizer.transform(new)
prior = pd.Series(y).value_counts(normalize=True).sort_index()
joint = np.log(prior.to_numpy()) + X_new.toarray() @ np.log(theta.to_numpy()).T
by_hand = np.exp(joint - np.logaddexp.reduce(joint, axis=1, keepdims=True))
proba = multinomial.predict_proba(X_new)
assert np.allclose(proba, by_hand) and np.allclose(proba, sk_multinomial.predict_proba(X_new))
print(pd.DataFrame(proba.round(4), index=new, columns=multinomial.classes_))

# %%
# The Bernoulli model
# -------------------
# ``p_cj = (D_cj + alpha) / (D_c + 2 alpha)``: the share of the class's messages holding
# word ``j``. A message's absent words count too: ``log(1 - p_cj)`` for each.

present = pd.DataFrame((X.toarray() > 0).astype(int), columns=vocabulary).groupby(y)
p = (present.sum() + 1).div(present.size() + 2, axis=0)
bernoulli = tl.TextNaiveBayes("bernoulli", alpha=1.0).fit(X, y)
assert np.allclose(np.exp(bernoulli.feature_log_prob_), p.to_numpy())
sk_bernoulli = BernoulliNB(alpha=1.0).fit(X, y)
assert np.allclose(bernoulli.predict_proba(X_new), sk_bernoulli.predict_proba(X_new))

bits = (X_new.toarray() > 0).astype(float)
log_p = np.log(p.to_numpy())
log_q = np.log1p(-p.to_numpy())
joint_b = np.log(prior.to_numpy()) + bits @ log_p.T + (1 - bits) @ log_q.T
by_hand_b = np.exp(joint_b - np.logaddexp.reduce(joint_b, axis=1, keepdims=True))
assert np.allclose(bernoulli.predict_proba(X_new), by_hand_b)
print(pd.DataFrame(bernoulli.predict_proba(X_new).round(4), index=new, columns=bernoulli.classes_))

# %%
# Why smoothing
# -------------
# Under maximum likelihood (``alpha=0``) a word never seen in a class has probability 0
# there: "meeting" never occurs in spam, so a message with it can never be spam,
# whatever else it says. With Laplace smoothing it only weighs against spam.

odd = vectorizer.transform(["free meeting now"])
ml = tl.TextNaiveBayes("multinomial", alpha=0.0).fit(X, y)
with np.errstate(divide="ignore"):
    ml_spam = ml.predict_proba(odd)[0, 1]
laplace_spam = multinomial.predict_proba(odd)[0, 1]
print("P(spam | 'free meeting now'): alpha=0:", ml_spam, " alpha=1:", round(laplace_spam, 4))
assert ml_spam == 0.0 and laplace_spam > 0

# %%
# Which words tell the classes apart
# ----------------------------------
# The mutual information of each word's presence with the class, ``I(X_j > 0; C)``, from
# the sparse matrix; by hand for "lunch" from its 2 x 2 table of documents.

mi = pd.Series(tl.term_class_information(X, y), index=vocabulary).sort_values(ascending=False)
print(mi.head(5).round(4))
table = pd.crosstab(
    X[:, list(vocabulary).index("lunch")].toarray().ravel() > 0, y, normalize=True
).to_numpy()
independent = np.outer(table.sum(axis=1), table.sum(axis=0))
seen = table > 0  # 0 log 0 = 0
mi_lunch = float((table[seen] * np.log(table[seen] / independent[seen])).sum())
print("I(lunch; class) by hand:", round(mi_lunch, 4))
assert np.isclose(mi["lunch"], mi_lunch)
