"""Sufficient statistics and their maths: one chunked one-hot product of counts, entropies
and mutual information, per-class Gaussians, CPT estimators and the one CPT check, the
learning settings.
"""
