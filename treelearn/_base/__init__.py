"""The base layer: the exception family, resource limits, log-space sums and the JSON value
encoder. Imports nothing else from treelearn.
"""
