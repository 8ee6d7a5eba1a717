"""Fitted models: :class:`~treelearn.TreeModel` (a discrete Bayesian network with tabular
CPTs) and the linear-Gaussian tree.
"""
