"""Structures as NetworkX graphs: spanning trees and forests of weight matrices (one
routine, one penalty), constraints, sums over all spanning trees, and the sparse (acCL)
tree search.
"""
