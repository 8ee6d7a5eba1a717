"""Exact inference: the message-passing engine for forests and one-conditioner networks,
and variable elimination for any other DAG.
"""
