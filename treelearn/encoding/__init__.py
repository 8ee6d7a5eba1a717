"""Tables to integer codes: the one state-order rule, the one numeric-column rule, row
weights, and discretizing numbers and dates (:class:`~treelearn.Discretizer`).
"""
