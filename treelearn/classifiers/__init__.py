"""scikit-learn estimators: naive Bayes, TAN, the Chow-Liu multinet, k-DB, AODE, Bayesian
TAN, the Gaussian classifiers and text naive Bayes.
"""
