"""Independent implementations the tests compare treelearn's numbers with (brute force, by
the definition, in plain Python: no vectorisation shared with the library)."""

from __future__ import annotations

import math
from collections.abc import Sequence


def _entropy_bits(counts: Sequence[float]) -> float:
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts if c > 0)


def mdl_cut_points_brute(values: Sequence[float], classes: Sequence[int]) -> list[float]:
    """Fayyad and Irani's (IJCAI 1993) recursive MDL cut points, by trying every boundary
    of every segment in turn: the first cut of least weighted class entropy, taken if
    ``gain > (log2(N - 1) + log2(3^k - 2) - (k Ent(S) - k1 Ent(S1) - k2 Ent(S2))) / N``."""
    rows = sorted(zip(values, classes), key=lambda r: r[0])
    labels = sorted({c for _, c in rows})

    def counts(part: list) -> list[float]:
        return [float(sum(1 for _, c in part if c == label)) for label in labels]

    def cut(part: list) -> list[float]:
        n = len(part)
        if n < 2:
            return []
        best = None
        for i in range(n - 1):
            if part[i][0] == part[i + 1][0]:
                continue  # no boundary between equal values
            left, right = part[: i + 1], part[i + 1 :]
            e = (
                len(left) * _entropy_bits(counts(left)) + len(right) * _entropy_bits(counts(right))
            ) / n
            if best is None or e < best[0]:
                best = (e, i, left, right)
        if best is None:
            return []
        e, i, left, right = best
        prior = _entropy_bits(counts(part))
        gain = prior - e
        if gain <= 0:
            return []
        k = sum(1 for c in counts(part) if c > 0)
        k1 = sum(1 for c in counts(left) if c > 0)
        k2 = sum(1 for c in counts(right) if c > 0)
        e1, e2 = _entropy_bits(counts(left)), _entropy_bits(counts(right))
        delta = math.log2(3**k - 2) - (k * prior - k1 * e1 - k2 * e2)
        if not gain > (math.log2(n - 1) + delta) / n:
            return []
        point = (part[i][0] + part[i + 1][0]) / 2
        return [*cut(left), point, *cut(right)]

    return cut(rows)
