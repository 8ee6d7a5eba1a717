"""Learners: Chow-Liu trees and forests and CPTs for any DAG, EM for missing values,
mixtures of trees, Bayesian averaging over spanning trees.
"""
