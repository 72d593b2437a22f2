"""Statistics shared by the floors: the Wilson score interval of a
proportion (a search's per-move lower bound, a match's score interval)."""

from __future__ import annotations

import math


def wilson_interval(proportion: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (z = 1.96: 95%) of a proportion seen over n
    trials, clipped to [0, 1]; (0, 1) when there were none."""
    if n == 0:
        return (0.0, 1.0)
    denominator = 1 + z * z / n
    centre = proportion + z * z / (2 * n)
    # max: a proportion a hair outside [0, 1] (summed returns) has no negative variance
    spread = z * math.sqrt(max(0.0, proportion * (1 - proportion) / n + z * z / (4 * n * n)))
    return (max(0.0, (centre - spread) / denominator), min(1.0, (centre + spread) / denominator))
